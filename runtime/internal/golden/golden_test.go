package golden

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadCommitted(t *testing.T) {
	cases, err := Read("../../ref/testdata/golden.txt")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		if c.Kind != "q8k" && c.Kind != "q81" || len(c.Want) == 0 {
			t.Errorf("%s (line %d): kind %q, %d bytes wanted", c.Name, c.Line, c.Kind, len(c.Want))
		}
	}
}

func TestReadErrors(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		{"case a q81 K=2\nx 0=1\nwant\n00*36\nend\n", ""},
		{"x 0=1\n", ":1: content outside a case"},
		{"case a q81 K=2\nx 5=1\n", `:2: bad input "5=1"`},
		{"case a q81 K=2\nwant\nzz\n", `:3: bad hex token "zz"`},
		{"case a q81 K=2\n", "case a (line 1) not ended"},
		{"# only a comment\n", "no cases"},
	} {
		p := filepath.Join(t.TempDir(), "g.txt")
		if err := os.WriteFile(p, []byte(tc.text), 0o644); err != nil {
			t.Fatal(err)
		}
		cases, err := Read(p)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%q: %v", tc.text, err)
		case tc.want == "" && (len(cases) != 1 || len(cases[0].Want) != 36 || cases[0].X[0] != 1):
			t.Errorf("%q: got %+v", tc.text, cases)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%q: error %v, want one containing %q", tc.text, err, tc.want)
		}
	}
}

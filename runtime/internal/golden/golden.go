// Package golden reads the quantizers' golden vector file
// (runtime/ref/testdata/golden.txt, whose header describes the format):
// hand-derived Q8_K / Q8_1 bytes for crafted activation rows. runtime/ref's
// tests check the CPU references against it, runtime/verify's the kernels.
package golden

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// Case is one `case NAME KIND K=n` ... `end` block: the input row X and
// the bytes the quantizer of Kind ("q8k" or "q81") must produce.
type Case struct {
	Name, Kind string
	X          []float32
	Want       []byte
	Line       int // the line of its `case`
}

// Read parses path; an error names path:line and what was wrong.
func Read(path string) ([]Case, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var cases []Case
	var cur *Case
	inWant := false
	sc := bufio.NewScanner(f)
	ln := 0
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%s:%d: %s", path, ln, fmt.Sprintf(format, a...))
	}
	for sc.Scan() {
		ln++
		line, _, _ := strings.Cut(sc.Text(), "#")
		fields := strings.Fields(line)
		if len(fields) == 0 {
			continue
		}
		switch {
		case fields[0] == "case":
			if cur != nil || len(fields) != 4 || !strings.HasPrefix(fields[3], "K=") {
				return nil, bad("bad case line (want: case NAME KIND K=n, after the last case's end)")
			}
			k, err := strconv.Atoi(fields[3][2:])
			if err != nil || k < 0 {
				return nil, bad("bad K %q", fields[3])
			}
			cur = &Case{Name: fields[1], Kind: fields[2], X: make([]float32, k), Line: ln}
		case cur == nil:
			return nil, bad("content outside a case")
		case fields[0] == "end":
			cases = append(cases, *cur)
			cur, inWant = nil, false
		case fields[0] == "want":
			inWant = true
		case inWant:
			for _, tok := range fields {
				hx, rep := tok, 1
				if h, n, ok := strings.Cut(tok, "*"); ok {
					hx = h
					if rep, err = strconv.Atoi(n); err != nil || rep < 0 {
						return nil, bad("bad repeat in %q", tok)
					}
				}
				b, err := hex.DecodeString(hx)
				if err != nil || len(b) != 1 {
					return nil, bad("bad hex token %q (want one byte, optionally *count)", tok)
				}
				cur.Want = append(cur.Want, bytes.Repeat(b, rep)...)
			}
		case fields[0] == "x":
			for _, kv := range fields[1:] {
				ks, vs, ok := strings.Cut(kv, "=")
				i, err1 := strconv.Atoi(ks)
				v, err2 := strconv.ParseFloat(vs, 32)
				if !ok || err1 != nil || err2 != nil || i < 0 || i >= len(cur.X) {
					return nil, bad("bad input %q (want index=value, index below K)", kv)
				}
				cur.X[i] = float32(v)
			}
		default:
			return nil, bad("unexpected %q", fields[0])
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if cur != nil {
		return nil, fmt.Errorf("%s: case %s (line %d) not ended", path, cur.Name, cur.Line)
	}
	if len(cases) == 0 {
		return nil, fmt.Errorf("%s: no cases", path)
	}
	return cases, nil
}

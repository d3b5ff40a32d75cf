package ref

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"testing"
)

func TestRegistry(t *testing.T) {
	names := Names()
	if !sort.StringsAreSorted(names) {
		t.Fatalf("Names() = %v, not sorted", names)
	}
	for _, n := range []string{"gemv", "q8k", "q8_1"} {
		if _, ok := Lookup(n); !ok || !slices.Contains(names, n) {
			t.Fatalf("reference %s is not registered (Names() = %v)", n, names)
		}
	}
	if _, ok := Lookup("nope"); ok {
		t.Fatal("Lookup of an unregistered name succeeded")
	}
	mustPanic(t, "duplicate", func() { Register("gemv", gemvReference) })
	mustPanic(t, "nil", func() { Register("x", nil) })
}

func gemvProblem(m, n, k int, w, a string, scaled bool) Problem {
	p := Problem{M: m, N: n, K: k, Weight: w, Act: a, Scaled: scaled}
	p.Buffers = []Buffer{{Name: "W", Dir: "in"}, {Name: "X", Dir: "in"}, {Name: "scale", Dir: "in"}, {Name: "Y", Dir: "out", Elem: "f32"}}
	return p
}

// The GEMV reference's inputs decode to the values its expected output is
// computed from.
func TestGemvReference(t *testing.T) {
	r, _ := Lookup("gemv")
	for _, tc := range []struct {
		w, a   string
		scaled bool
		wb, ab int
	}{{"f32", "f32", false, 4, 4}, {"bf16", "bf16", false, 2, 2}, {"e4m3", "f16", true, 1, 2}} {
		e, err := r(gemvProblem(3, 5, 16, tc.w, tc.a, tc.scaled), rand.New(rand.NewPCG(1, 2)))
		if err != nil {
			t.Fatal(err)
		}
		if len(e.Inputs["W"]) != 5*16*tc.wb || len(e.Inputs["X"]) != 3*16*tc.ab {
			t.Fatalf("%s: input sizes %d %d", tc.w, len(e.Inputs["W"]), len(e.Inputs["X"]))
		}
		if tc.scaled != (len(e.Inputs["scale"]) == 4*5) {
			t.Fatalf("%s: scale %d bytes", tc.w, len(e.Inputs["scale"]))
		}
		if len(e.Want) != 15 || len(e.Mag) != 15 || e.Bytes != nil {
			t.Fatalf("%s: %d values, %d magnitudes", tc.w, len(e.Want), len(e.Mag))
		}
		for i := range e.Want {
			if e.Mag[i] < e.Want[i] || e.Mag[i] < -e.Want[i] {
				t.Fatalf("%s: |want[%d]| = %g > mag %g", tc.w, i, e.Want[i], e.Mag[i])
			}
		}
		if got := e.Index(7); got != "t=1 n=2" {
			t.Fatalf("Index(7) = %s", got)
		}
	}
	if _, err := r(Problem{M: 1, N: 1, K: 1, Weight: "f32", Act: "f32"}, rand.New(rand.NewPCG(1, 2))); err == nil {
		t.Fatal("a launch without the GEMV buffers was accepted")
	}
	if _, err := r(gemvProblem(1, 1, 1, "i4", "f32", false), rand.New(rand.NewPCG(1, 2))); err == nil {
		t.Fatal("an unknown element type was accepted")
	}
}

// The block references quantize their own inputs: every block pattern
// appears, the bytes are the quantizer's, and a differing byte is named.
func TestBlockReferences(t *testing.T) {
	for name, f := range map[string]blockFormat{"q8k": q8kFormat, "q8_1": q81Format} {
		r, _ := Lookup(name)
		for _, act := range []string{"f32", "f16", "bf16"} {
			K := 4 * f.Block
			if f.Pad {
				K = 3*f.Block + 5
			}
			rows := len(blockPatterns)
			p := Problem{M: rows, N: 1, K: K, Act: act, Buffers: []Buffer{{Name: "X", Dir: "in"}, {Name: "Y", Dir: "out"}}}
			e, err := r(p, rand.New(rand.NewPCG(3, 4)))
			if err != nil {
				t.Fatal(err)
			}
			nb := (K + f.Block - 1) / f.Block
			if e.Unit != f.Bytes || len(e.Bytes) != rows*nb*f.Bytes {
				t.Fatalf("%s %s: %d bytes in units of %d", name, act, len(e.Bytes), e.Unit)
			}
			x := e.Inputs["X"]
			ab := map[string]int{"f32": 4, "f16": 2, "bf16": 2}[act]
			if len(x) != rows*K*ab {
				t.Fatalf("%s %s: X holds %d bytes", name, act, len(x))
			}
			seen := map[string]bool{}
			for i := 0; i < rows*nb; i++ {
				g := append([]byte(nil), e.Bytes[i*f.Bytes:(i+1)*f.Bytes]...)
				g[f.Bytes-1] ^= 0x40
				d := e.Describe(i, g, e.Bytes[i*f.Bytes:(i+1)*f.Bytes])
				for _, bp := range blockPatterns {
					if strings.Contains(d, "("+bp.name+" block)") {
						seen[bp.name] = true
					}
				}
				if !strings.Contains(d, "; inputs [") {
					t.Fatalf("%s: description %q", name, d)
				}
			}
			if len(seen) != len(blockPatterns) {
				t.Fatalf("%s %s: patterns seen %v of %d", name, act, seen, len(blockPatterns))
			}
			// Bytes are the quantizer's, row by row, on the decoded inputs.
			row0 := make([]float32, K)
			for i := range row0 {
				switch act {
				case "f32":
					row0[i] = Floats(x[4*i : 4*i+4])[0]
				case "f16":
					row0[i] = F16ToF32(uint16(x[2*i]) | uint16(x[2*i+1])<<8)
				case "bf16":
					row0[i] = BF16ToF32(uint16(x[2*i]) | uint16(x[2*i+1])<<8)
				}
			}
			q, err := f.quantize(row0)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(q, e.Bytes[:nb*f.Bytes]) {
				t.Fatalf("%s %s: row 0 differs from the quantizer", name, act)
			}
		}
	}
	d := q8kFormat.field(make([]byte, 292), append(make([]byte, 290), 1, 0), 290)
	if d != "bsums[15] got 0 want 1" {
		t.Fatalf("q8k field = %q", d)
	}
	d = q81Format.field([]byte{0, 0, 1, 0}, []byte{0, 0, 2, 0}, 2)
	if d != "s got 0x0001 want 0x0002" {
		t.Fatalf("q8_1 field = %q", d)
	}
	r, _ := Lookup("q8k")
	if _, err := r(Problem{M: 1, N: 1, K: 300, Act: "f32", Buffers: []Buffer{{Name: "X", Dir: "in"}}}, rand.New(rand.NewPCG(1, 1))); err == nil {
		t.Fatal("Q8_K accepted K = 300")
	}
}

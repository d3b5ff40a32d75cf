package ref

import (
	"math"
	"math/rand/v2"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestFP8CodesTable: the expected values bench/fp8codes.cu checks the GPU's
// e4m3 decode paths against (all 256 codes) are E4M3ToF32's, bit for bit
// (NaN written as 0x7FC00000).
func TestFP8CodesTable(t *testing.T) {
	src, err := os.ReadFile("../../bench/fp8codes.cu")
	if err != nil {
		t.Fatal(err)
	}
	s := string(src)
	a, b := strings.Index(s, "// BEGIN kWant"), strings.Index(s, "// END kWant")
	if a < 0 || b < a {
		t.Fatal("bench/fp8codes.cu: no // BEGIN kWant ... // END kWant table")
	}
	vals := regexp.MustCompile(`0x([0-9A-Fa-f]{8})u`).FindAllStringSubmatch(s[a:b], -1)
	if len(vals) != 256 {
		t.Fatalf("kWant has %d entries, want 256", len(vals))
	}
	for c, v := range vals {
		got, _ := strconv.ParseUint(v[1], 16, 32)
		f := E4M3ToF32(uint8(c))
		want := uint64(math.Float32bits(f))
		if f != f {
			want = 0x7FC00000
		}
		if got != want {
			t.Errorf("kWant[0x%02X] = 0x%08X, E4M3ToF32 gives 0x%08X (%g)", c, got, want, f)
		}
	}
}

// TestGemvCaseCatchesE4M3Decode: the GEMV verification case with a few
// products per output (templates/kernels.yaml: m = tokens, n = 259, k =
// min_k, i.e. the pack: 8, or 16 for the e4m3 tensor-core tiles) fails a
// kernel whose e4m3 decode is systematically wrong and passes a correct
// one, under the family's bound 8 * 2^-24 * sqrt(k + 1), on every seed
// tried. Wrong decodes simulated: e4m3 subnormals flushed to zero (a
// denormal-flushing conversion), the FNUZ reading of the bytes (gfx942's
// fp8 conversion: half the value, 0x80 NaN), and the lowest mantissa bit
// dropped. A single wrong small code is below what any relative bound over
// a dot product can see; bench/fp8codes.cu checks every code on the GPU.
func TestGemvCaseCatchesE4M3Decode(t *testing.T) {
	fnuz := func(c uint8) float32 {
		if c == 0x80 {
			return float32(math.NaN())
		}
		return E4M3ToF32(c) / 2
	}
	decoders := []struct {
		name string
		dec  func(uint8) float32
		bad  bool
	}{
		{"exact", E4M3ToF32, false},
		{"subnormals flushed", func(c uint8) float32 {
			if c&0x78 == 0 {
				return 0
			}
			return E4M3ToF32(c)
		}, true},
		{"FNUZ", fnuz, true},
		{"low mantissa bit dropped", func(c uint8) float32 { return E4M3ToF32(c &^ 1) }, true},
	}
	for _, k := range []int{8, 16} {
		for _, m := range []int{1, 8} {
			for seed := uint64(1); seed <= 20; seed++ {
				rng := rand.New(rand.NewPCG(seed, 14))
				const n = 259
				wb, wf, err := Random(rng, "e4m3", n*k)
				if err != nil {
					t.Fatal(err)
				}
				_, xf, err := Random(rng, "bf16", m*k)
				if err != nil {
					t.Fatal(err)
				}
				_, sf := Scales(rng, n)
				want, mag := Gemv(wf, xf, sf, m, n, k), GemvAbs(wf, xf, sf, m, n, k)
				bound := 8 * math.Pow(2, -24) * math.Sqrt(float64(k+1))
				for _, d := range decoders {
					got := make([]float32, m*n)
					for tt := 0; tt < m; tt++ {
						for r := 0; r < n; r++ {
							var acc float32 // a float32 kernel: products exact, sums rounded
							for i := 0; i < k; i++ {
								acc += d.dec(wb[r*k+i]) * xf[tt*k+i]
							}
							got[tt*n+r] = acc * sf[r]
						}
					}
					e := RelL2Mag(got, want, mag)
					if d.bad && !(e > bound) {
						t.Errorf("k=%d m=%d seed %d: %s decode passes (error %.3g, bound %.3g)", k, m, seed, d.name, e, bound)
					}
					if !d.bad && e > bound {
						t.Errorf("k=%d m=%d seed %d: the exact decode fails (error %.3g, bound %.3g)", k, m, seed, e, bound)
					}
					if seed == 1 && m == 8 {
						t.Logf("k=%d m=%d: %-24s error %.3g = %.2f x the bound", k, m, d.name, e, e/bound)
					}
				}
			}
		}
	}
}

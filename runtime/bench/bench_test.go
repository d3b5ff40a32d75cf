package bench

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	kruntime "github.com/kgen-dev/kgen/runtime"
	"github.com/kgen-dev/kgen/runtime/table"
)

// fakeTimer times a variant by its name's length, so every candidate has a
// known, distinct-ish time.
type fakeTimer map[string]int

func (f fakeTimer) Time(v *table.Variant, op kruntime.Op) (float64, error) {
	f[v.Name]++
	return float64(len(v.Name)) + float64(v.IntParam("rows")), nil
}

func sm90(t *testing.T) kruntime.Device {
	t.Helper()
	dev, err := kruntime.ArchDevice("sm90")
	if err != nil {
		t.Fatal(err)
	}
	dev.Name, dev.Driver = "Fake GPU", "fake 1"
	return dev
}

func TestRunRecordsTimes(t *testing.T) {
	dev := sm90(t)
	ft := fakeTimer{}
	res, err := Run(ft, dev, Case{Family: "gemv", Model: "m", Layer: "l", N: 4096, K: 4096, M: 1, Dtype: "bf16"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Times) != res.Candidates || len(res.Times) != len(ft) || res.Candidates < 2 {
		t.Fatalf("%d times for %d candidates (%d timed)", len(res.Times), res.Candidates, len(ft))
	}
	if res.Times[res.Heuristic] != res.HeuristicUS || res.Times[res.Tuned] != res.TunedUS {
		t.Errorf("times %v do not hold the picks %s %.1f, %s %.1f", res.Times, res.Heuristic, res.HeuristicUS, res.Tuned, res.TunedUS)
	}
	for name, us := range res.Times {
		if us < res.TunedUS {
			t.Errorf("%s (%.1f us) beats the tuned pick", name, us)
		}
	}
	// bytes: W + X + Y (no scale for bf16), from the contract
	if res.WeightBytes != 4096*4096*2 || res.Bytes != res.WeightBytes+4096*2+4096*4 {
		t.Errorf("weight bytes %d, bytes %d", res.WeightBytes, res.Bytes)
	}
	if res.TunedGBps != float64(res.Bytes)/res.TunedUS/1e3 || res.HeuristicGBps != float64(res.Bytes)/res.HeuristicUS/1e3 {
		t.Errorf("GB/s %g %g", res.TunedGBps, res.HeuristicGBps)
	}
	// fp8 weights carry a per-row f32 scale, read like the weights
	res, err = Run(fakeTimer{}, dev, Case{Family: "gemv", N: 1024, K: 4096, M: 2, Dtype: "fp8e4m3_bf16"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.WeightBytes != 1024*4096 || res.Bytes != res.WeightBytes+4*1024+2*4096*2+2*1024*4 {
		t.Errorf("fp8: weight bytes %d, bytes %d", res.WeightBytes, res.Bytes)
	}
}

func TestSuites(t *testing.T) {
	s, err := LoadQuantSuite("../../bench/quant-shapes.yaml")
	if err != nil {
		t.Fatal(err)
	}
	cs := s.Cases([]string{"quant_q8k", "quant_q8_1"}, []string{"f32", "bf16"})
	if len(cs) != 2*2*5*2 || cs[0] != (QuantCase{Family: "quant_q8k", Rows: 1, K: 4096, Dtype: "f32"}) {
		t.Fatalf("%d cases, first %+v", len(cs), cs[0])
	}
	if op := cs[0].Op(); op != (kruntime.Op{Family: "quant_q8k", Dtype: "f32", M: 1, N: 1, K: 4096}) {
		t.Errorf("op %v", op)
	}
	// a dtype the family has no variants of makes no case
	if cs := s.Cases([]string{"quant_q8k"}, []string{"fp8e4m3_bf16", "f16"}); len(cs) != 10 || cs[0].Dtype != "f16" || cs[9].Dtype != "f16" {
		t.Errorf("%d cases, first %+v", len(cs), cs[0])
	}
	dir := t.TempDir()
	for body, want := range map[string]string{"rows: [1]\nk: [256]\nm: [2]\n": "unknown field", "rows: []\nk: [256]\n": "rows", "rows: [1]\nk: [0]\n": "not positive"} {
		p := filepath.Join(dir, "q.yaml")
		os.WriteFile(p, []byte(body), 0o644)
		if _, err := LoadQuantSuite(p); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", body, err, want)
		}
	}
	ms, err := LoadSuite("../../bench/decode-shapes.yaml")
	if err != nil {
		t.Fatal(err)
	}
	mc := ms.Cases([]string{"gemv"}, []string{"bf16", "nope"})
	if len(mc) != 21*4 || mc[0] != (Case{Family: "gemv", Model: "dense-27b", Layer: "down", N: 5120, K: 17408, M: 1, Dtype: "bf16"}) {
		t.Fatalf("%d cases, first %+v", len(mc), mc[0])
	}
	if op := mc[0].Op(); op != (kruntime.Op{Family: "gemv", Dtype: "bf16", M: 1, N: 5120, K: 17408}) {
		t.Errorf("op %v", op)
	}
}

// TestKindOf: the suite kind follows the contract (does it read n?).
func TestKindOf(t *testing.T) {
	for f, want := range map[string]Kind{"gemv": Models, "quant_q8k": Rows, "quant_q8_1": Rows} {
		if k, err := KindOf(f); err != nil || k != want {
			t.Errorf("%s: %v %v, want %v", f, k, err, want)
		}
	}
	if _, err := KindOf("gemm"); err == nil || !strings.Contains(err.Error(), `unknown family "gemm" (families: gemv, mmvq, quant_q8_1, quant_q8k)`) {
		t.Errorf("unknown family: %v", err)
	}
	if got := strings.Join(FamilyDtypes("quant_q8_1"), ","); got != "bf16,f16,f32" {
		t.Errorf("quant_q8_1 dtypes %s", got)
	}
}

// tileTimer makes the thread tile 30x slower than the others.
type tileTimer struct{}

func (tileTimer) Time(v *table.Variant, op kruntime.Op) (float64, error) {
	return map[string]float64{"thread": 300, "sg": 10, "multi": 12, "wg": 20}[v.Param("tile")], nil
}

func TestRunQuant(t *testing.T) {
	dev := sm90(t)
	res, err := RunQuant(tileTimer{}, dev, QuantCase{Family: "quant_q8k", Rows: 1, K: 4096, Dtype: "bf16"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.ThreadUS != 300 || res.Baseline != "quant_q8k_bf16_thread" || res.BestTile != "sg" || res.BestUS != 10 || res.Speedup != 30 || res.Tuned != "quant_q8k_bf16_sg" || res.TunedUS != 10 {
		t.Errorf("%+v", res)
	}
	if res.Bytes != 8192+16*292 || res.InputBytes != 8192 || res.BestGBps != float64(res.Bytes)/10/1e3 || len(res.TileUS) != 4 || res.Candidates != 7 { // 4 tiles, 3 of them also in two passes (_sb2: 16-bit input)
		t.Errorf("bytes %d, %g GB/s, tiles %v", res.Bytes, res.BestGBps, res.TileUS)
	}
	if l := res.Line(); !strings.Contains(l, "thread     300.0 us  best sg") || !strings.Contains(l, "30.0x") {
		t.Errorf("line %q", l)
	}
}

// TestMeasureBaseline: the baseline is timed even when Tune's sweep leaves
// it out (here pack 1, the heuristic's pack being 8), and a family without
// one has none.
func TestMeasureBaseline(t *testing.T) {
	dev := sm90(t)
	op := kruntime.Op{Family: "gemv", Dtype: "bf16", M: 1, N: 4096, K: 4096}
	ft := fakeTimer{}
	m, err := Measure(ft, dev, op, nil)
	if err != nil {
		t.Fatal(err)
	}
	if m.Baseline != nil || len(m.Times) != len(ft) || len(m.Variants) != len(m.Times) {
		t.Errorf("gemv: baseline %v, %d times, %d variants, %d timed", m.Baseline, len(m.Times), len(m.Variants), len(ft))
	}
	// The quantizers name theirs in the spec (bench.baseline): the
	// lane-per-block tile, timed even when the tuning sweep skips it.
	qop := QuantCase{Family: "quant_q8k", Rows: 64, K: 4096, Dtype: "f32"}.Op()
	ft = fakeTimer{}
	m2, err := Measure(ft, dev, qop, nil)
	if err != nil {
		t.Fatal(err)
	}
	if m2.Baseline == nil || m2.Baseline.Name != "quant_q8k_f32_thread" || ft[m2.Baseline.Name] == 0 {
		t.Fatalf("quant_q8k baseline %v, timed %d times", m2.Baseline, ft["quant_q8k_f32_thread"])
	}
}

// TestNotEligible: an op outside the family's rules, or without an
// eligible variant, is reported as such; a timer's failure is not.
func TestNotEligible(t *testing.T) {
	dev := sm90(t)
	_, err := Measure(tileTimer{}, dev, QuantCase{Family: "quant_q8k", Rows: 1, K: 1000, Dtype: "f32"}.Op(), nil)
	if why, ok := NotEligible(err); !ok || !strings.HasPrefix(why, "not eligible: Q8_K quantizes whole 256-element superblocks") {
		t.Errorf("k=1000: %q %v (%v)", why, ok, err)
	}
	_, err = Measure(tileTimer{}, dev, kruntime.Op{Family: "quant_q8k", Dtype: "f32", M: 1, N: 1, K: 256, Align: 2}, nil)
	if why, ok := NotEligible(err); !ok || !strings.HasPrefix(why, "not eligible: no variant serves") {
		t.Errorf("align 2: %q %v (%v)", why, ok, err)
	}
	boom := errors.New("boom")
	_, err = Measure(failTimer{boom}, dev, kruntime.Op{Family: "quant_q8k", Dtype: "f32", M: 1, N: 1, K: 256}, nil)
	if _, ok := NotEligible(err); ok || !errors.Is(err, boom) {
		t.Errorf("timer failure: %v", err)
	}
}

type failTimer struct{ err error }

func (f failTimer) Time(*table.Variant, kruntime.Op) (float64, error) { return 0, f.err }

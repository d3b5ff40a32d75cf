package bench

import (
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

func TestRunRecordsTimes(t *testing.T) {
	dev, err := kruntime.ArchDevice("sm90")
	if err != nil {
		t.Fatal(err)
	}
	dev.Name, dev.Driver = "Fake GPU", "fake 1"
	ft := fakeTimer{}
	res, err := Run(ft, dev, Case{Model: "m", Layer: "l", N: 4096, K: 4096, M: 1, Dtype: "bf16"}, nil)
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
}

func TestQuantSuite(t *testing.T) {
	s, err := LoadQuantSuite("../../bench/quant-shapes.yaml")
	if err != nil {
		t.Fatal(err)
	}
	cs := s.Cases([]string{"quant_q8k", "quant_q8_1"}, []string{"f32", "bf16"})
	if len(cs) != 2*2*5*2 || cs[0] != (QuantCase{Family: "quant_q8k", Rows: 1, K: 4096, Dtype: "f32"}) {
		t.Fatalf("%d cases, first %+v", len(cs), cs[0])
	}
	dir := t.TempDir()
	for body, want := range map[string]string{"rows: [1]\nk: [256]\nm: [2]\n": "unknown field", "rows: []\nk: [256]\n": "rows", "rows: [1]\nk: [0]\n": "not positive"} {
		p := filepath.Join(dir, "q.yaml")
		os.WriteFile(p, []byte(body), 0o644)
		if _, err := LoadQuantSuite(p); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", body, err, want)
		}
	}
}

// tileTimer makes the thread tile 30x slower than the others.
type tileTimer struct{}

func (tileTimer) Time(v *table.Variant, op kruntime.Op) (float64, error) {
	return map[string]float64{"thread": 300, "sg": 10, "multi": 12, "wg": 20}[v.Param("tile")], nil
}

func TestRunQuant(t *testing.T) {
	dev, err := kruntime.ArchDevice("sm90")
	if err != nil {
		t.Fatal(err)
	}
	res, err := RunQuant(tileTimer{}, dev, QuantCase{Family: "quant_q8k", Rows: 1, K: 4096, Dtype: "bf16"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.ThreadUS != 300 || res.BestTile != "sg" || res.BestUS != 10 || res.Speedup != 30 || res.Tuned != "quant_q8k_bf16_sg" || res.TunedUS != 10 {
		t.Errorf("%+v", res)
	}
	if res.Bytes != 8192+16*292 || res.BestGBps != float64(res.Bytes)/10/1e3 || len(res.TileUS) != 4 {
		t.Errorf("bytes %d, %g GB/s, tiles %v", res.Bytes, res.BestGBps, res.TileUS)
	}
}

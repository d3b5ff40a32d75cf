package bench

import (
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

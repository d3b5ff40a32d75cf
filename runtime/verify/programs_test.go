package verify

import (
	"fmt"
	"testing"

	"github.com/kgen-dev/kgen/generated"
	kruntime "github.com/kgen-dev/kgen/runtime"
)

// countingRunner records what would reach the device: a blob, its
// specialization constants and the launch's grid, arguments and buffer
// sizes. It returns poison-free zeros, so checks fail; only the counts
// matter here.
type countingRunner struct {
	dev  kruntime.Device
	runs map[string]int
}

func (r *countingRunner) Device() kruntime.Device { return r.dev }
func (r *countingRunner) Name() string            { return "counting runner" }
func (r *countingRunner) Run(l *kruntime.Launch, _ map[string][]byte, _ uint32, guard int) ([]byte, error) {
	k := fmt.Sprintf("%s %v grid %v args %v", l.Variant.Artifact.Path, l.SpecConsts(), l.Groups, l.Args)
	for _, b := range l.Buffers {
		k += fmt.Sprintf(" %d", b.Size)
	}
	r.runs[k]++
	return make([]byte, l.Output().Size+guard), nil
}

// TestRunOncePerProgram: gen verify --family quant_q8k ran the same blobs
// with the same constants once per Vulkan device class (the classes' table
// rows share them); each distinct program now runs once per device, with
// every variant it stands for counted as verified.
func TestRunOncePerProgram(t *testing.T) {
	dev, err := kruntime.ArchDevice("llvmpipe")
	if err != nil {
		t.Fatal(err)
	}
	for _, family := range []string{"quant_q8k", "quant_q8_1"} {
		r := &countingRunner{dev: dev, runs: map[string]int{}}
		f := Filter{Backend: "vulkan", Family: family}
		rep, err := Run(r, generated.Variants, Options{Filter: f, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		n, classes := 0, map[string]bool{}
		for i := range generated.Variants {
			if v := &generated.Variants[i]; f.Match(v) {
				n++
				classes[v.Arch] = true
			}
		}
		if len(classes) < 2 {
			t.Fatalf("%s: variants on %d classes; the test needs rows of several", family, len(classes))
		}
		for k, c := range r.runs {
			if c != 1 {
				t.Errorf("%s: %d runs of %s", family, c, k)
			}
		}
		if rep.Verified != n || rep.Programs == 0 || rep.Programs >= n {
			t.Errorf("%s: verified %d of %d variants as %d programs", family, rep.Verified, n, rep.Programs)
		}
		t.Logf("%s: %d variants on %d classes, %d programs, %d launches", family, n, len(classes), rep.Programs, len(r.runs))
	}
}

package vulkan

import (
	"strings"
	"testing"
)

// TestExecutableQueries: on a device with VK_KHR_pipeline_executable_properties
// a pipeline built after the capture reports what it captured (statistics:
// at least one; internal representations: possibly none, each named); one
// built before refuses, naming the capture. Without the extension (lavapipe
// of Debian 12), the capture fails naming it and the query fails.
func TestExecutableQueries(t *testing.T) {
	_, d := openTest(t)
	spv := compileGLSL(t, scaleShader)
	for _, q := range []struct {
		capture string
		on      func(bool) error
		query   func(*Pipeline) (int, error)
		atLeast int
	}{
		{"CaptureStatistics", d.CaptureStatistics, func(p *Pipeline) (int, error) {
			st, err := p.Statistics()
			for _, s := range st {
				if s.Name == "" {
					t.Errorf("a statistic without a name: %+v", s)
				}
				t.Logf("%s: %s (%s)", s.Executable, s, s.Description)
			}
			if m, err := p.StatisticsByName(); err == nil && len(m) != len(st) {
				t.Errorf("StatisticsByName: %d names, want %d", len(m), len(st))
			}
			return len(st), err
		}, 1},
		{"CaptureInternalRepresentations", d.CaptureInternalRepresentations, func(p *Pipeline) (int, error) {
			rs, err := p.InternalRepresentations()
			for _, r := range rs {
				if r.Name == "" {
					t.Errorf("a representation without a name: %+v", r)
				}
				t.Logf("%s: %s (%s): %d bytes, text %v", r.Executable, r.Name, r.Description, len(r.Data), r.Text)
			}
			return len(rs), err
		}, 0},
	} {
		t.Run(q.capture, func(t *testing.T) {
			before, err := d.NewPipeline(spv, "main", []SpecConst{{0, 3}}, 2, 8)
			if err != nil {
				t.Fatal(err)
			}
			defer before.Destroy()
			err = q.on(true)
			if !d.Info().PipelineStatistics {
				if err == nil || !strings.Contains(err.Error(), "VK_KHR_pipeline_executable_properties") {
					t.Fatalf("%s on %q without the extension: %v, want an error naming it", q.capture, d.Info().Name, err)
				}
				if _, err := q.query(before); err == nil {
					t.Fatal("the query succeeded on a device without the extension")
				}
				t.Logf("%s: nothing to capture (as reported)", d.Info().Name)
				return
			}
			if err != nil {
				t.Fatalf("%s: %v", q.capture, err)
			}
			defer q.on(false)
			if _, err := q.query(before); err == nil || !strings.Contains(err.Error(), q.capture+"(true)") {
				t.Fatalf("query of a pipeline built before the capture: %v, want an error naming %s", err, q.capture)
			}
			p, err := d.NewPipeline(spv, "main", []SpecConst{{0, 3}}, 2, 8)
			if err != nil {
				t.Fatal(err)
			}
			defer p.Destroy()
			n, err := q.query(p)
			if err != nil || n < q.atLeast {
				t.Fatalf("query: %d reported, %v; want at least %d", n, err, q.atLeast)
			}
		})
	}
}

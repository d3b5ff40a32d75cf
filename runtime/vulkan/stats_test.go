package vulkan

import (
	"strings"
	"testing"
)

// TestStatistics: on a device with VK_KHR_pipeline_executable_properties a
// pipeline built after CaptureStatistics(true) reports at least one
// statistic; one built before refuses, naming the fix. Without the
// extension (lavapipe of Debian 12), CaptureStatistics fails and names it.
func TestStatistics(t *testing.T) {
	_, d := openTest(t)
	spv := compileGLSL(t, scaleShader)
	before, err := d.NewPipeline(spv, "main", []SpecConst{{0, 3}}, 2, 8)
	if err != nil {
		t.Fatal(err)
	}
	defer before.Destroy()
	err = d.CaptureStatistics(true)
	if !d.Info().PipelineStatistics {
		if err == nil || !strings.Contains(err.Error(), "VK_KHR_pipeline_executable_properties") {
			t.Fatalf("CaptureStatistics on %q without the extension: %v, want an error naming it", d.Info().Name, err)
		}
		if _, err := before.Statistics(); err == nil {
			t.Fatal("Statistics succeeded on a device without the extension")
		}
		t.Logf("%s: no pipeline statistics (as reported)", d.Info().Name)
		return
	}
	if err != nil {
		t.Fatalf("CaptureStatistics: %v", err)
	}
	defer d.CaptureStatistics(false)
	if _, err := before.Statistics(); err == nil || !strings.Contains(err.Error(), "CaptureStatistics(true)") {
		t.Fatalf("Statistics of a pipeline built before capture: %v, want an error naming CaptureStatistics", err)
	}
	p, err := d.NewPipeline(spv, "main", []SpecConst{{0, 3}}, 2, 8)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Destroy()
	st, err := p.Statistics()
	if err != nil {
		t.Fatalf("Statistics: %v", err)
	}
	if len(st) == 0 {
		t.Fatal("no statistics reported")
	}
	if m, err := p.StatisticsByName(); err != nil || len(m) != len(st) {
		t.Fatalf("StatisticsByName: %d names, %v; want %d", len(m), err, len(st))
	}
	for _, s := range st {
		if s.Name == "" {
			t.Fatalf("a statistic without a name: %+v", s)
		}
		t.Logf("%s: %s (%s)", s.Executable, s, s.Description)
	}
}

// TestInternalRepresentations: as TestStatistics, for what the driver
// compiled a pipeline into. Without the extension the capture fails naming
// it; with it, a pipeline built before capture refuses, one built after
// returns the driver's representations (possibly none), each named.
func TestInternalRepresentations(t *testing.T) {
	_, d := openTest(t)
	spv := compileGLSL(t, scaleShader)
	before, err := d.NewPipeline(spv, "main", []SpecConst{{0, 3}}, 2, 8)
	if err != nil {
		t.Fatal(err)
	}
	defer before.Destroy()
	err = d.CaptureInternalRepresentations(true)
	if !d.Info().PipelineStatistics {
		if err == nil || !strings.Contains(err.Error(), "VK_KHR_pipeline_executable_properties") {
			t.Fatalf("CaptureInternalRepresentations on %q without the extension: %v, want an error naming it", d.Info().Name, err)
		}
		if _, err := before.InternalRepresentations(); err == nil {
			t.Fatal("InternalRepresentations succeeded on a device without the extension")
		}
		t.Logf("%s: no internal representations (as reported)", d.Info().Name)
		return
	}
	if err != nil {
		t.Fatalf("CaptureInternalRepresentations: %v", err)
	}
	defer d.CaptureInternalRepresentations(false)
	if _, err := before.InternalRepresentations(); err == nil || !strings.Contains(err.Error(), "CaptureInternalRepresentations(true)") {
		t.Fatalf("InternalRepresentations of a pipeline built before capture: %v, want an error naming the capture", err)
	}
	p, err := d.NewPipeline(spv, "main", []SpecConst{{0, 3}}, 2, 8)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Destroy()
	rs, err := p.InternalRepresentations()
	if err != nil {
		t.Fatalf("InternalRepresentations: %v", err)
	}
	for _, r := range rs {
		if r.Name == "" {
			t.Fatalf("a representation without a name: %+v", r)
		}
		t.Logf("%s: %s (%s): %d bytes, text %v", r.Executable, r.Name, r.Description, len(r.Data), r.Text)
	}
}

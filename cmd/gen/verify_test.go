package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kgen-dev/kgen/generated"
	kruntime "github.com/kgen-dev/kgen/runtime"
	"github.com/kgen-dev/kgen/runtime/verify"
)

// skippingRunner is a device every variant is too big for: a workgroup
// limit of one lane, so verification skips them all.
type skippingRunner struct{ dev kruntime.Device }

func (r skippingRunner) Device() kruntime.Device { return r.dev }
func (r skippingRunner) Name() string            { return "a device of 1-lane workgroups" }
func (r skippingRunner) Run(*kruntime.Launch, map[string][]byte, uint32, int) ([]byte, error) {
	return nil, errors.New("nothing should run")
}

// TestVerifyNothingIsFailure: gen verify that skips every variant it was
// asked to verify exits 1 (it printed "verified 0 variants" and exited 0).
func TestVerifyNothingIsFailure(t *testing.T) {
	dev, err := kruntime.ArchDevice("llvmpipe")
	if err != nil {
		t.Fatal(err)
	}
	dev.MaxWorkgroup = 1
	cmd := newVerifyCmd()
	var out bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetErr(&out)
	err = report(cmd, skippingRunner{dev}, generated.Variants, verify.Filter{Backend: "vulkan", Family: "quant_q8_1", Arch: "llvmpipe"}, 1)
	var ee *exitError
	if !errors.As(err, &ee) || ee.code != 1 || !strings.Contains(err.Error(), "verified nothing") {
		t.Fatalf("every variant skipped: %v, want exit 1 (verified nothing)\n%s", err, out.String())
	}
	if !strings.Contains(out.String(), "skipped ") {
		t.Fatalf("the skips are not reported:\n%s", out.String())
	}
}

// TestVerifyStats: --stats on a device whose driver reports no pipeline
// statistics (lavapipe 22.3) is exit 2 naming the extension, before any
// variant runs; on one that reports them the file holds every verified
// program's statistics.
func TestVerifyStats(t *testing.T) {
	path := filepath.Join(t.TempDir(), "stats.json")
	cmd := newVerifyCmd()
	var out bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetErr(&out)
	cmd.SetArgs([]string{"--family", "quant_q8_1", "--variant", "quant_q8_1_f32_sg", "--arch", "llvmpipe", "--stats", path})
	err := cmd.Execute()
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.code != 2 || !strings.Contains(err.Error(), "VK_KHR_pipeline_executable_properties") {
			t.Fatalf("--stats: %v (exit %d), want exit 2 naming the extension\n%s", err, ee.code, out.String())
		}
		if strings.Contains(out.String(), "shape runs") {
			t.Fatalf("variants ran before the refusal:\n%s", out.String())
		}
		if _, err := os.Stat(path); err == nil {
			t.Fatal("a stats file was written")
		}
		return
	}
	if err != nil {
		t.Fatalf("--stats: %v\n%s", err, out.String())
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var st map[string]map[string]float64
	if err := json.Unmarshal(b, &st); err != nil || len(st) != 1 {
		t.Fatalf("stats file %s: %v", b, err)
	}
}

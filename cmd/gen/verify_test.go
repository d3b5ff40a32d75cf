package main

import (
	"bytes"
	"errors"
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

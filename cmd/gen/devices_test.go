package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// TestModuleFlags: --module is repeatable and comma-separated on every
// command that loads modules, and readModules reads each file in order.
func TestModuleFlags(t *testing.T) {
	for name, cmd := range map[string]*cobra.Command{"verify": newVerifyCmd(), "bench": newBenchCmd(), "tune": newTuneCmd()} {
		if err := cmd.ParseFlags([]string{"--module", "a.cubin,b.cubin", "--module", "c.cubin"}); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		got, err := cmd.Flags().GetStringSlice("module")
		if err != nil || strings.Join(got, " ") != "a.cubin b.cubin c.cubin" {
			t.Errorf("%s --module: %v %v", name, got, err)
		}
	}
	dir := t.TempDir()
	var paths []string
	for _, n := range []string{"one.cubin", "two.cubin"} {
		p := filepath.Join(dir, n)
		if err := os.WriteFile(p, []byte(n), 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	images, err := readModules("--module", paths)
	if err != nil || len(images) != 2 || images[1].Name != paths[1] || string(images[1].Data) != "two.cubin" {
		t.Fatalf("readModules: %+v %v", images, err)
	}
	var ee *exitError
	if _, err := readModules("--module", []string{paths[0], filepath.Join(dir, "missing.cubin")}); !errors.As(err, &ee) || ee.code != 2 {
		t.Errorf("missing module: %v", err)
	}
	if _, err := readModules("--module", nil); !errors.As(err, &ee) || ee.code != 2 || !strings.Contains(err.Error(), "--module") {
		t.Errorf("no module: %v", err)
	}
}

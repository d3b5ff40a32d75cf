package main

import (
	"strings"
	"testing"
)

// TestExplainNegativeAlign: a negative --align is invalid input (exit 2,
// one error line), not an op for another path.
func TestExplainNegativeAlign(t *testing.T) {
	code, _, stderr := runInProcess(t, []string{"explain", "--arch", "gfx1200", "--family", "gemv", "--dtype", "f16", "--align=-4"})
	if code != 2 || !strings.Contains(stderr, "invalid op") || !strings.Contains(stderr, "align is -4") || strings.Count(strings.TrimRight(stderr, "\n"), "\n") != 0 {
		t.Fatalf("explain --align=-4: exit %d, stderr %q; want exit 2 and one line saying align is -4", code, stderr)
	}
	code, stdout, stderr := runInProcess(t, []string{"explain", "--arch", "gfx1200", "--family", "gemv", "--dtype", "f16", "--align=8"})
	if code != 0 || !strings.Contains(stdout, "chosen: ") {
		t.Fatalf("explain --align=8: exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
}

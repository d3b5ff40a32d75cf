package bench

import (
	"strings"
	"testing"
)

func TestParseLaunchMode(t *testing.T) {
	for s, want := range map[string]LaunchMode{"graph": LaunchGraph, "eager": LaunchEager} {
		if got, err := ParseLaunchMode(s); err != nil || got != want {
			t.Errorf("ParseLaunchMode(%q) = %q, %v; want %q", s, got, err, want)
		}
	}
	if LaunchModes[0] != LaunchGraph {
		t.Errorf("default (first) launch mode is %q, want graph", LaunchModes[0])
	}
	for _, bad := range []string{"", "Graph", "graphs", " eager", "cuda-graph"} {
		m, err := ParseLaunchMode(bad)
		if err == nil {
			t.Errorf("ParseLaunchMode(%q) accepted: %q", bad, m)
			continue
		}
		for _, s := range []string{"unknown launch mode", `"` + bad + `"`, "graph, eager"} {
			if !strings.Contains(err.Error(), s) {
				t.Errorf("ParseLaunchMode(%q): error lacks %q: %v", bad, s, err)
			}
		}
	}
	// An invalid mode is refused before the context is touched.
	if _, err := timeLaunches(nil, "warp", 3, func() error { return nil }); err == nil || !strings.Contains(err.Error(), `"warp"`) {
		t.Errorf("timeLaunches with an unknown mode: %v", err)
	}
}

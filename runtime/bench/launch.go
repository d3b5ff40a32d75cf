package bench

import (
	"fmt"
	"strings"

	"github.com/kgen-dev/kgen/runtime/driver"
)

// LaunchMode is how the CUDA timers launch what they time.
type LaunchMode string

// The launch modes.
const (
	// LaunchGraph captures the timed launches (the weight rotation
	// included) into a CUDA graph once and times its replays, as serving
	// engines run decode (driver.Context.TimeGraph).
	LaunchGraph LaunchMode = "graph"
	// LaunchEager launches each kernel from the host inside the timed
	// region (driver.Context.Time), host launch gaps included.
	LaunchEager LaunchMode = "eager"
)

// LaunchModes lists the modes, the default (graph) first.
var LaunchModes = []LaunchMode{LaunchGraph, LaunchEager}

// ParseLaunchMode parses a --launch value.
func ParseLaunchMode(s string) (LaunchMode, error) {
	for _, m := range LaunchModes {
		if s == string(m) {
			return m, nil
		}
	}
	names := make([]string, len(LaunchModes))
	for i, m := range LaunchModes {
		names[i] = string(m)
	}
	return "", fmt.Errorf("unknown launch mode %q: want one of %s", s, strings.Join(names, ", "))
}

// timeLaunches times launch reps times in the given mode and returns each
// run's GPU time in microseconds (the same unit in both modes).
func timeLaunches(ctx *driver.Context, mode LaunchMode, reps int, launch func() error) ([]float64, error) {
	switch mode {
	case LaunchGraph:
		return ctx.TimeGraph(reps, launch)
	case LaunchEager:
		return ctx.Time(reps, launch)
	}
	_, err := ParseLaunchMode(string(mode))
	return nil, err
}

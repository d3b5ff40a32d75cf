package main

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/kgen-dev/kgen/runtime/vulkan"
)

// capture runs vktime with args and returns its exit status and stdout.
func capture(t *testing.T, args ...string) (int, string) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	old := os.Stdout
	os.Stdout = w
	code := run(args)
	os.Stdout = old
	w.Close()
	var b bytes.Buffer
	io.Copy(&b, r)
	return code, b.String()
}

func spv(t *testing.T, name string) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), name+".spv")
	cmd := exec.Command("glslangValidator", "-V", "--target-env", "vulkan1.2", "-o", out, filepath.Join("..", "..", "bench", "vk", name+".comp"))
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("glslangValidator: %v\n%s", err, b)
	}
	return out
}

// TestTimesShaders times the bench's empty and copy shaders on the local
// device (lavapipe in CI) and checks the line vktime prints.
func TestTimesShaders(t *testing.T) {
	line := regexp.MustCompile(`: [0-9.]+ us a dispatch \(median of 3 passes of (\d+) dispatches over (\d+) buffer copies; `)
	code, out := capture(t, "-spv", spv(t, "empty"), "-reps", "3", "-dispatches", "8")
	if m := line.FindStringSubmatch(out); code != 0 || m == nil || m[1] != "8" || m[2] != "1" {
		t.Fatalf("empty: exit %d, output %q", code, out)
	}
	// 1 MiB in, 1 MiB out, rotated over 4 MiB: 2 copies.
	code, out = capture(t, "-spv", spv(t, "copy"), "-push", "65536", "-buf", "1048576:f16,1048576", "-groups", "256",
		"-reps", "3", "-rotate-mib", "4", "-bytes", "2097152")
	if m := line.FindStringSubmatch(out); code != 0 || m == nil || m[1] != "2" || m[2] != "2" || !strings.Contains(out, " GB/s") {
		t.Fatalf("copy: exit %d, output %q", code, out)
	}
}

// TestBadFlags: every mistake is exit 2 before any device work, a missing
// file exit 1.
func TestBadFlags(t *testing.T) {
	for _, args := range [][]string{
		{},
		{"-spv", "x.spv", "extra"},
		{"-spv", "x.spv", "-spec", "3"},
		{"-spv", "x.spv", "-push", "1,-2"},
		{"-spv", "x.spv", "-buf", "100:f64"},
		{"-spv", "x.spv", "-buf", "0"},
		{"-spv", "x.spv", "-groups", "0"},
		{"-spv", "x.spv", "-groups", "1,1,1,1"},
		{"-spv", "x.spv", "-reps", "0"},
		{"-spv", "x.spv", "-buf", "16", "-dump", "1:out.bin"},
		{"-spv", "x.spv", "-buf", "16", "-dump", "0"},
	} {
		if code, _ := capture(t, args...); code != 2 {
			t.Errorf("vktime %q: exit %d, want 2", args, code)
		}
	}
	if code, _ := capture(t, "-spv", filepath.Join(t.TempDir(), "missing.spv")); code != 1 {
		t.Errorf("missing file: exit %d, want 1", code)
	}
}

// TestIR: -ir writes the driver's internal representations where the
// device has VK_KHR_pipeline_executable_properties, and is exit 1 (before
// timing anything) where it has not (lavapipe of Debian 12).
func TestIR(t *testing.T) {
	inst, err := vulkan.Open()
	if err != nil {
		t.Fatal(err)
	}
	has := false
	for _, info := range inst.Devices() {
		has = has || info.PipelineStatistics
	}
	inst.Close()
	prefix := filepath.Join(t.TempDir(), "empty")
	code, out := capture(t, "-spv", spv(t, "empty"), "-reps", "2", "-ir", prefix)
	if !has {
		if code != 1 || out != "" {
			t.Fatalf("-ir without the extension: exit %d, output %q; want exit 1 and nothing timed", code, out)
		}
		return
	}
	if code != 0 || !strings.Contains(out, "internal representation") && !strings.Contains(out, " -> "+prefix) {
		t.Fatalf("-ir: exit %d, output %q", code, out)
	}
}

// TestDump: -dump writes a binding after the run; through the copy shader
// the output binding equals the input, and the same seeded fill gives the
// same bytes in two runs (what comparing an experiment with a blob needs).
func TestDump(t *testing.T) {
	dir := t.TempDir()
	s := spv(t, "copy")
	for _, b := range []string{"0:" + filepath.Join(dir, "in"), "1:" + filepath.Join(dir, "out")} {
		if code, out := capture(t, "-spv", s, "-push", "4096", "-buf", "65536:f32,65536", "-groups", "16", "-reps", "2", "-rotate-mib", "1", "-dump", b); code != 0 {
			t.Fatalf("-dump %s: exit %d, %q", b, code, out)
		}
	}
	in, err := os.ReadFile(filepath.Join(dir, "in"))
	if err != nil {
		t.Fatal(err)
	}
	out, err := os.ReadFile(filepath.Join(dir, "out"))
	if err != nil {
		t.Fatal(err)
	}
	if len(in) != 65536 || !bytes.Equal(in, out) || bytes.Equal(in, make([]byte, len(in))) {
		t.Fatalf("copy: %d bytes in, %d out, equal %v (want 65536 random bytes copied)", len(in), len(out), bytes.Equal(in, out))
	}
}

// TestCount: -count runs the copy shader once with block counters and
// prints its instructions per element; its output binding is the input,
// as in a timed run (-dump), and the bad combinations are exit 2.
func TestCount(t *testing.T) {
	dir := t.TempDir()
	s := spv(t, "copy")
	in, out := filepath.Join(dir, "in"), filepath.Join(dir, "out")
	code, text := capture(t, "-spv", s, "-push", "4096", "-buf", "65536:f32,65536", "-groups", "16", "-dump", "0:"+in)
	if code != 0 {
		t.Fatalf("timed: exit %d, %q", code, text)
	}
	code, text = capture(t, "-count", "-elements", "16384", "-spv", s, "-push", "4096", "-buf", "65536:f32,65536", "-groups", "16", "-dump", "1:"+out)
	if code != 0 || !regexp.MustCompile(`SPIR-V instructions executed: \d+ over (\d+) invocations, [0-9.]+ per element`).MatchString(text) ||
		!strings.Contains(text, "buffer") {
		t.Fatalf("-count: exit %d, output %q", code, text)
	}
	a, _ := os.ReadFile(in)
	b, _ := os.ReadFile(out)
	if len(a) != 65536 || !bytes.Equal(a, b) {
		t.Fatalf("-count's copy wrote %d bytes unlike its %d input bytes", len(b), len(a))
	}
	for _, args := range [][]string{
		{"-count", "-spv", s, "-ir", filepath.Join(dir, "ir")},
		{"-count", "-spv", s, "-elements", "-1"},
	} {
		if code, _ := capture(t, args...); code != 2 {
			t.Errorf("vktime %q: exit %d, want 2", args, code)
		}
	}
}

package examples

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/kgen-dev/kgen/gen/compile"
	kruntime "github.com/kgen-dev/kgen/runtime"
	"github.com/kgen-dev/kgen/runtime/vulkan"
)

// lavapipe is the Vulkan driver CI runs on (the Makefile's default too).
const lavapipe = "/usr/share/vulkan/icd.d/lvp_icd.x86_64.json"

// The ops both examples run (main.cpp).
var (
	gemvOp  = kruntime.Op{Family: "gemv", Dtype: "bf16", M: 3, N: 1536, K: 2048}
	quantOp = kruntime.Op{Family: "quant_q8_1", Dtype: "f32", M: 5, N: 1, K: 4100}
)

var strict = []string{"-std=c++17", "-O2", "-Wall", "-Wextra", "-Wpedantic", "-Werror"}

// tool finds a compiler; a missing one fails (CI must not pass by skipping).
func tool(t *testing.T, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		t.Fatalf("%s is needed to build the C++ examples: apt-get install g++ clang-19 libvulkan-dev libamdhip64-dev (make deps)", name)
	}
	return p
}

// build compiles an example's main.cpp with compiler and extra flags.
func build(t *testing.T, compiler, example string, extra ...string) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), example)
	args := append(append([]string{}, strict...), "-I", "../generated", filepath.Join(example, "main.cpp"))
	args = append(append(args, extra...), "-o", bin)
	out, err := exec.Command(tool(t, compiler), args...).CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", compiler, strings.Join(args, " "), err, out)
	}
	return bin
}

// vulkanEnv is the environment the examples run in: lavapipe unless the
// caller chose a driver.
func vulkanEnv() []string {
	env := os.Environ()
	if os.Getenv("VK_DRIVER_FILES") == "" && os.Getenv("VK_ICD_FILENAMES") == "" {
		env = append(env, "VK_DRIVER_FILES="+lavapipe)
	}
	return env
}

// goDevice is the Go runtime's description of Vulkan device 0, as the
// example finds it.
func goDevice(t *testing.T) kruntime.Device {
	t.Helper()
	if os.Getenv("VK_DRIVER_FILES") == "" && os.Getenv("VK_ICD_FILENAMES") == "" {
		t.Setenv("VK_DRIVER_FILES", lavapipe)
	}
	inst, err := vulkan.Open()
	if err != nil {
		if errors.Is(err, vulkan.ErrNoLoader) || errors.Is(err, vulkan.ErrNoDevice) {
			t.Fatalf("the Vulkan example runs on lavapipe: %v (apt-get install mesa-vulkan-drivers libvulkan1)", err)
		}
		t.Fatal(err)
	}
	defer inst.Close()
	dev, err := kruntime.VulkanDevice(inst.Devices()[0])
	if err != nil {
		t.Fatal(err)
	}
	return dev
}

// TestCppVulkan builds examples/cpp-vulkan with g++ and clang++ (C++17,
// -Wall -Wextra -Wpedantic -Werror) and runs it on lavapipe: it must pick
// the variants Go's Select picks on the same device, launch them as
// runtime.Plan plans them (grid, workgroup, specialization constants),
// check each blob's SHA-256, and match the CPU (GEMV within kgen's bound,
// Q8_1 byte for byte).
func TestCppVulkan(t *testing.T) {
	bin := build(t, "g++", "cpp-vulkan", "-lvulkan")
	build(t, "clang++-19", "cpp-vulkan", "-lvulkan")
	cmd := exec.Command(bin, "generated")
	cmd.Dir = ".."
	cmd.Env = vulkanEnv()
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	out := stdout.String()
	t.Logf("examples/cpp-vulkan on %s:\n%s%s", lavapipe, out, stderr.String())
	if err != nil {
		t.Fatalf("the example failed: %v", err)
	}
	dev := goDevice(t)
	if !strings.Contains(out, "-> kgen class "+dev.Arch+"\n") {
		t.Errorf("the example's device class is not Go's %s", dev.Arch)
	}
	for _, op := range []kruntime.Op{gemvOp, quantOp} {
		ch, err := kruntime.SelectWith(dev, op, nil)
		if err != nil {
			t.Fatal(err)
		}
		l, err := kruntime.Plan(ch.Variant, dev, op)
		if err != nil {
			t.Fatal(err)
		}
		head := fmt.Sprintf("%s m=%d n=%d k=%d: variant %s\n", op.Family, op.M, op.N, op.K, ch.Variant.Name)
		launch := fmt.Sprintf("  launch: groups %dx%dx%d of %d lanes;", l.Groups[0], l.Groups[1], l.Groups[2], l.Workgroup)
		spec := "; spec constants"
		for _, sc := range l.SpecConsts() {
			spec += fmt.Sprintf(" %d=%d", sc.ID, sc.Value)
		}
		i := strings.Index(out, head)
		if i < 0 {
			t.Errorf("the example did not pick Go's %s for %s", ch.Variant.Name, op)
			continue
		}
		section := out[i+len(head):]
		first := strings.SplitN(section, "\n", 2)[0]
		if !strings.HasPrefix(first, launch) || !strings.HasSuffix(first, spec) {
			t.Errorf("%s: the example's launch is not Plan's (want %q ... %q)", op, launch, spec)
		}
		if !strings.Contains(section, ch.Variant.Artifact.Path+" (") || !strings.Contains(section, "matches kg_artifacts") {
			t.Errorf("%s: no checked blob %s", op, ch.Variant.Artifact.Path)
		}
	}
	if n := strings.Count(out, ": PASS\n"); n != 2 || !strings.HasSuffix(out, "\nok\n") {
		t.Errorf("want two PASS comparisons and ok; got %d", n)
	}
	if !strings.Contains(out, "gemv m=9: kg_select -> -1 (not eligible") {
		t.Error("m=9 is not reported as not eligible")
	}
}

// TestCppVulkanRefusesTamperedBlob: a blob whose bytes differ from the
// table's SHA-256 never reaches the driver: the example stops with exit 3.
func TestCppVulkanRefusesTamperedBlob(t *testing.T) {
	bin := build(t, "g++", "cpp-vulkan", "-lvulkan")
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "spirv"), 0o755); err != nil {
		t.Fatal(err)
	}
	blobs, err := filepath.Glob(filepath.Join("..", "generated", "spirv", "*.spv"))
	if err != nil || len(blobs) == 0 {
		t.Fatalf("no blobs: %v", err)
	}
	for _, b := range blobs {
		data, err := os.ReadFile(b)
		if err != nil {
			t.Fatal(err)
		}
		data[len(data)-1] ^= 1 // one bit
		if err := os.WriteFile(filepath.Join(dir, "spirv", filepath.Base(b)), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(bin, dir)
	cmd.Env = vulkanEnv()
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 3 || !bytes.Contains(out, []byte("refusing to load it")) {
		t.Fatalf("a tampered blob: %v (want exit 3 and a refusal)\n%s", err, out)
	}
}

// objectCommand is the clang command examples/cpp-hip/README.md documents
// for a code object: gen/compile's HIPObjectFlags, which kgen's own tests
// build every AMD arch with.
func objectCommand(arch, src, out string) []string {
	return append(append([]string{"clang++-19"}, compile.HIPObjectFlags(arch)...), src, "-o", out)
}

// TestCppHIP compiles examples/cpp-hip with clang++-19 against the HIP
// headers (C++17, -Wall -Wextra -Wpedantic -Werror) and links it with the
// HIP runtime; builds the Q8_1 code object for gfx1100 with the README's
// command; and runs the example: without an AMD GPU (CI) it must say so
// and exit 3; with one, it must match the CPU.
func TestCppHIP(t *testing.T) {
	if _, err := os.Stat("/usr/include/hip/hip_runtime.h"); err != nil {
		t.Fatal("the HIP example needs the HIP headers: apt-get install libamdhip64-dev (make deps)")
	}
	bin := build(t, "clang++-19", "cpp-hip", "-D__HIP_PLATFORM_AMD__", "-lamdhip64")
	readme, err := os.ReadFile(filepath.Join("cpp-hip", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	documented := strings.Join(objectCommand("gfx1100", "generated/hip/quant_q8_1_gfx1100.hip", "build/quant_q8_1_gfx1100.co"), " ")
	if !bytes.Contains(readme, []byte(documented)) {
		t.Errorf("cpp-hip/README.md does not document the code-object command kgen uses:\n%s", documented)
	}
	cmd := objectCommand("gfx1100", filepath.Join("..", "generated", "hip", "quant_q8_1_gfx1100.hip"), filepath.Join(dir, "quant_q8_1_gfx1100.co"))
	tool(t, cmd[0])
	if out, err := exec.Command(cmd[0], cmd[1:]...).CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", strings.Join(cmd, " "), err, out)
	}
	obj, err := os.ReadFile(filepath.Join(dir, "quant_q8_1_gfx1100.co"))
	if err != nil || !bytes.HasPrefix(obj, []byte("\x7fELF")) {
		t.Fatalf("the code object is not an ELF file: %v", err)
	}
	run := exec.Command(bin, filepath.Join("..", "generated"), dir)
	out, err := run.CombinedOutput()
	var ee *exec.ExitError
	switch {
	case err == nil && bytes.HasSuffix(out, []byte("\nok\n")):
		t.Logf("ran on an AMD GPU:\n%s", out)
	case errors.As(err, &ee) && ee.ExitCode() == 3 && regexp.MustCompile(`no HIP device`).Match(out):
		t.Logf("no AMD GPU here: compiled, linked and code object built; the example says: %s", bytes.TrimSpace(out))
	default:
		t.Fatalf("examples/cpp-hip: %v\n%s", err, out)
	}
}

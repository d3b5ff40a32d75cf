// Package compile runs the real compilers on rendered sources: glslangValidator
// (GLSL -> SPIR-V, then spirv-val) and clang/hipcc (HIP validity checks and
// code objects). Results are cached by the hash of (source, tool version,
// flags) and compiled in parallel. Tools are run without a shell, with
// arguments as a list.
package compile

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"strings"
	"sync"
)

// ToolError says a tool is missing or not the pinned version.
type ToolError struct {
	Tool    string
	Have    string // version found, "" when missing
	Want    string // version required, "" when any
	Install string // how to get it
	// Env and Path are set when an environment variable named a tool that
	// cannot be run; Reason says why.
	Env, Path, Reason string
}

func (e *ToolError) Error() string {
	if e.Env != "" {
		return fmt.Sprintf("%s=%s: %s; point it at a %s (or unset it to use the one on PATH), or install it: %s", e.Env, e.Path, e.Reason, e.Tool, e.Install)
	}
	if e.Have == "" {
		return fmt.Sprintf("%s not found on PATH; install it: %s", e.Tool, e.Install)
	}
	return fmt.Sprintf("%s version mismatch: installed %q, generated/manifest.json was made with %q; install the pinned one: %s (or run `gen` to regenerate with yours)", e.Tool, e.Have, e.Want, e.Install)
}

// Install hints for the pinned toolchain (Debian 12).
const (
	InstallGlslang = "apt-get install glslang-tools=12.0.0-2 spirv-tools (or `make deps`)"
	InstallClang   = "apt-get install clang-19 lld-19 llvm-19 libamdhip64-dev (or `make deps`)"
)

// Tool is a located compiler with its version string.
type Tool struct {
	Name    string
	Path    string
	Version string
}

// Toolchain is the set of tools a run uses.
type Toolchain struct {
	Glslang  *Tool // glslangValidator
	SpirvVal *Tool // spirv-val
	Clang    *Tool // clang++-19 (or $KGEN_CLANG); nil when absent
	HIPCC    *Tool // a real hipcc when on PATH; nil otherwise
	// HIPInclude is where the real HIP headers live ("" when absent).
	HIPInclude string
}

var versionCache sync.Map // path -> version

// firstLine runs `path args...` and returns its first output line.
func firstLine(ctx context.Context, path string, args ...string) (string, error) {
	if v, ok := versionCache.Load(path); ok {
		return v.(string), nil
	}
	out, err := exec.CommandContext(ctx, path, args...).Output()
	if err != nil {
		return "", fmt.Errorf("%s %s: %w", path, strings.Join(args, " "), err)
	}
	line, _, _ := strings.Cut(string(out), "\n")
	line = strings.TrimSpace(line)
	versionCache.Store(path, line)
	return line, nil
}

// findEnv locates a tool an environment variable may name: when the
// variable is set, it must name an executable (a path, or a name on PATH);
// falling back to the default would run a tool the user did not ask for.
func findEnv(env, tool, install string, defaults ...string) (string, error) {
	v := os.Getenv(env)
	if v == "" {
		return find(defaults...), nil
	}
	p, err := exec.LookPath(v)
	if err != nil {
		reason := err.Error()
		var ee *exec.Error
		var pe *fs.PathError
		switch {
		case errors.As(err, &pe):
			reason = pe.Err.Error() // the path is already in the message
		case errors.As(err, &ee):
			reason = ee.Err.Error()
		}
		return "", &ToolError{Tool: tool, Install: install, Env: env, Path: v, Reason: reason}
	}
	return p, nil
}

func find(names ...string) string {
	for _, n := range names {
		if n == "" {
			continue
		}
		if p, err := exec.LookPath(n); err == nil {
			return p
		}
	}
	return ""
}

// FindGlslang locates glslangValidator and spirv-val.
func FindGlslang(ctx context.Context) (*Tool, *Tool, error) {
	g, err := findEnv("KGEN_GLSLANG", "glslangValidator", InstallGlslang, "glslangValidator")
	if err != nil {
		return nil, nil, err
	}
	if g == "" {
		return nil, nil, &ToolError{Tool: "glslangValidator", Install: InstallGlslang}
	}
	gv, err := firstLine(ctx, g, "--version")
	if err != nil {
		return nil, nil, &ToolError{Tool: "glslangValidator", Install: InstallGlslang}
	}
	sv := find("spirv-val")
	if sv == "" {
		return nil, nil, &ToolError{Tool: "spirv-val", Install: InstallGlslang}
	}
	svv, err := firstLine(ctx, sv, "--version")
	if err != nil {
		return nil, nil, &ToolError{Tool: "spirv-val", Install: InstallGlslang}
	}
	return &Tool{"glslangValidator", g, gv}, &Tool{"spirv-val", sv, svv}, nil
}

// FindClang locates clang++-19 ($KGEN_CLANG overrides) and, if present, a
// real hipcc and the HIP headers.
func FindClang(ctx context.Context) (*Tool, error) {
	c, err := findEnv("KGEN_CLANG", "clang++-19", InstallClang, "clang++-19")
	if err != nil {
		return nil, err
	}
	if c == "" {
		return nil, &ToolError{Tool: "clang++-19", Install: InstallClang}
	}
	v, err := firstLine(ctx, c, "--version")
	if err != nil {
		return nil, &ToolError{Tool: "clang++-19", Install: InstallClang}
	}
	// The HIP headers go with clang; a KGEN_HIP_INCLUDE without them is the
	// same mistake as a KGEN_CLANG naming nothing (HIPHeaders would fall
	// back to another directory).
	if d := os.Getenv("KGEN_HIP_INCLUDE"); d != "" {
		if _, err := os.Stat(d + "/hip/hip_runtime.h"); err != nil {
			return nil, &ToolError{Tool: "HIP include directory", Install: InstallClang, Env: "KGEN_HIP_INCLUDE", Path: d, Reason: "has no hip/hip_runtime.h"}
		}
	}
	return &Tool{"clang", c, v}, nil
}

// FindHIPCC returns a real hipcc when one is on PATH.
func FindHIPCC(ctx context.Context) *Tool {
	h := find("hipcc")
	if h == "" {
		return nil
	}
	v, err := firstLine(ctx, h, "--version")
	if err != nil {
		return nil
	}
	return &Tool{"hipcc", h, v}
}

// HIPHeaders returns the include directory holding hip/hip_runtime.h, or "".
func HIPHeaders() string {
	for _, d := range []string{os.Getenv("KGEN_HIP_INCLUDE"), "/opt/rocm/include", "/usr/include"} {
		if d == "" {
			continue
		}
		if _, err := os.Stat(d + "/hip/hip_runtime.h"); err == nil {
			return d
		}
	}
	return ""
}

// run runs a tool with stdin and returns stdout; on failure the error holds
// the tool's combined message.
func run(ctx context.Context, dir string, stdin []byte, path string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, path, args...)
	cmd.Dir = dir
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		msg := strings.TrimSpace(stderr.String() + "\n" + stdout.String())
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return nil, fmt.Errorf("%s", msg)
		}
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return stdout.Bytes(), nil
}

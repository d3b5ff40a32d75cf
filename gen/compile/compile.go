package compile

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// GLSLFlags are the fixed glslang flags. Never -g: it embeds paths and source.
var GLSLFlags = []string{"-V", "--target-env", "vulkan1.2", "--stdin", "-S", "comp"}

// SpirvValFlags are spirv-val's flags.
var SpirvValFlags = []string{"--target-env", "vulkan1.2"}

// HIPSyntaxFlags check a HIP source against headers without code generation.
func HIPSyntaxFlags(arch string, bare bool, include string) []string {
	f := []string{"-x", "hip", "-std=c++17", "--offload-arch=" + arch, "--cuda-device-only", "-fsyntax-only", "-nogpulib"}
	if bare {
		return append(f, "-nogpuinc", "-DKGEN_BARE")
	}
	if include != "/usr/include" { // a system dir already; naming it breaks #include_next
		f = append(f, "-I", include)
	}
	return f
}

// HIPObjectFlags build a code object with no ROCm install (the bare header).
func HIPObjectFlags(arch string) []string {
	return []string{"-x", "hip", "-std=c++17", "--offload-arch=" + arch, "--cuda-device-only", "--no-gpu-bundle-output",
		"-c", "-O3", "-nogpuinc", "-nogpulib", "-mcode-object-version=5", "-fuse-cuid=none", "-DKGEN_BARE"}
}

// Job is one compile: a source and what to do with it.
type Job struct {
	Name   string // for messages: the blob or file
	Source []byte
	// Kind: "spirv" compiles GLSL to SPIR-V and validates it; "hip-syntax"
	// checks a HIP source; "hip-object" builds a code object.
	Kind string
	Arch string // HIP arch
	// Header is the portability header's bytes, placed beside HIP sources.
	Header []byte
	// Variants names the variants the source serves, for error messages.
	Variants []string
	// Lines maps a source line to the variant defined there (HIP).
	Lines map[int]string
}

// Result is a job's output.
type Result struct {
	Job    *Job
	Output []byte // SPIR-V or code object; nil for syntax checks
	Cached bool
}

// Error is a failed compile, naming the variant and the compiler's message.
type Error struct {
	Job     *Job
	Variant string
	Msg     string
}

func (e *Error) Error() string {
	who := e.Job.Name
	if e.Variant != "" {
		who = "variant " + e.Variant + " (" + e.Job.Name + ")"
	} else if len(e.Job.Variants) > 0 {
		vs := e.Job.Variants
		more := ""
		if len(vs) > 3 {
			vs, more = vs[:3], fmt.Sprintf(" and %d more", len(e.Job.Variants)-3)
		}
		who = fmt.Sprintf("%s (variants %s%s)", e.Job.Name, strings.Join(vs, ", "), more)
	}
	return fmt.Sprintf("compile %s failed:\n%s", who, indent(e.Msg))
}

func indent(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > 30 {
		lines = append(lines[:30], fmt.Sprintf("... (%d more lines)", len(lines)-30))
	}
	return "    " + strings.Join(lines, "\n    ")
}

// Compiler runs jobs with a toolchain and a cache.
type Compiler struct {
	Tools *Toolchain
	Cache *Cache
	// Jobs bounds parallelism; 0 means GOMAXPROCS.
	Jobs int
	// Progress, when set, is called after each job finishes.
	Progress func(done, total int, r *Result)

	mu sync.Mutex
}

func (c *Compiler) key(j *Job) (string, []string, *Tool, error) {
	t := c.Tools
	switch j.Kind {
	case "spirv":
		if t.Glslang == nil || t.SpirvVal == nil {
			return "", nil, nil, &ToolError{Tool: "glslangValidator", Install: InstallGlslang}
		}
		return Key("spirv", t.Glslang.Version, strings.Join(GLSLFlags, " "), t.SpirvVal.Version, string(j.Source)), GLSLFlags, t.Glslang, nil
	case "hip-syntax", "hip-object":
		if t.Clang == nil {
			return "", nil, nil, &ToolError{Tool: "clang++-19", Install: InstallClang}
		}
		var flags []string
		if j.Kind == "hip-syntax" {
			flags = HIPSyntaxFlags(j.Arch, t.HIPInclude == "", t.HIPInclude)
		} else {
			flags = HIPObjectFlags(j.Arch)
		}
		return Key(j.Kind, t.Clang.Version, strings.Join(flags, " "), string(j.Header), string(j.Source)), flags, t.Clang, nil
	}
	return "", nil, nil, fmt.Errorf("unknown job kind %q", j.Kind)
}

// Run compiles every job, in parallel, and returns results in job order.
// The first failure (in job order) is returned; the others still finish.
func (c *Compiler) Run(ctx context.Context, jobs []*Job) ([]*Result, error) {
	n := c.Jobs
	if n <= 0 {
		n = runtime.GOMAXPROCS(0)
	}
	results := make([]*Result, len(jobs))
	errs := make([]error, len(jobs))
	sem := make(chan struct{}, n)
	var wg sync.WaitGroup
	done := 0
	for i, j := range jobs {
		wg.Add(1)
		go func(i int, j *Job) {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			r, err := c.one(ctx, j)
			results[i], errs[i] = r, err
			c.mu.Lock()
			done++
			if c.Progress != nil && err == nil {
				c.Progress(done, len(jobs), r)
			}
			c.mu.Unlock()
		}(i, j)
	}
	wg.Wait()
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return results, nil
}

func (c *Compiler) one(ctx context.Context, j *Job) (*Result, error) {
	key, flags, tool, err := c.key(j)
	if err != nil {
		return nil, err
	}
	if out := c.Cache.Get(key); out != nil {
		c.count(true)
		if j.Kind == "hip-syntax" {
			out = nil
		}
		return &Result{Job: j, Output: out, Cached: true}, nil
	}
	c.count(false)
	tmp, err := os.MkdirTemp("", "kgen-compile-*")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	var out []byte
	switch j.Kind {
	case "spirv":
		spv := filepath.Join(tmp, "out.spv")
		if _, err := run(ctx, tmp, j.Source, tool.Path, append(append([]string{}, flags...), "-o", spv)...); err != nil {
			return nil, &Error{Job: j, Msg: err.Error()}
		}
		if out, err = os.ReadFile(spv); err != nil {
			return nil, err
		}
		if _, err := run(ctx, tmp, nil, c.Tools.SpirvVal.Path, append(append([]string{}, SpirvValFlags...), spv)...); err != nil {
			return nil, &Error{Job: j, Msg: "spirv-val: " + err.Error()}
		}
	case "hip-syntax", "hip-object":
		src := filepath.Join(tmp, filepath.Base(j.Name))
		if err := os.WriteFile(src, j.Source, 0o644); err != nil {
			return nil, err
		}
		if err := os.WriteFile(filepath.Join(tmp, "kgen_hip.h"), j.Header, 0o644); err != nil {
			return nil, err
		}
		args := append([]string{}, flags...)
		obj := filepath.Join(tmp, "out.co")
		if j.Kind == "hip-object" {
			args = append(args, "-o", obj)
		}
		args = append(args, filepath.Base(src))
		if _, err := run(ctx, tmp, nil, tool.Path, args...); err != nil {
			return nil, &Error{Job: j, Variant: blame(err.Error(), filepath.Base(src), j.Lines), Msg: err.Error()}
		}
		if j.Kind == "hip-object" {
			if out, err = os.ReadFile(obj); err != nil {
				return nil, err
			}
		}
	}
	stored := out
	if stored == nil {
		stored = []byte("ok")
	}
	c.Cache.Put(key, stored)
	return &Result{Job: j, Output: out}, nil
}

func (c *Compiler) count(hit bool) {
	if c.Cache == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if hit {
		c.Cache.Hits++
	} else {
		c.Cache.Misses++
	}
}

// blame finds the variant whose line a compiler message points at: the
// instantiation note points at the variant's extern "C" entry.
func blame(msg, file string, lines map[int]string) string {
	re := regexp.MustCompile(regexp.QuoteMeta(file) + `:(\d+):`)
	var hits []string
	for _, m := range re.FindAllStringSubmatch(msg, -1) {
		ln, _ := strconv.Atoi(m[1])
		if v, ok := lines[ln]; ok {
			hits = append(hits, v)
		}
	}
	if len(hits) == 0 {
		return ""
	}
	sort.Strings(hits)
	return hits[0]
}

// Package gen is kgen's generator as a library. Data flows one way:
//
//	spec files --spec--> Spec --expand--> variants --render--> sources
//	  --compile--> artifacts --emit--> table, manifest --sync--> generated/
//
// Generate writes generated/ atomically; Check renders the same file set in
// memory and reports drift; List returns the expanded variants.
package gen

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/kgen-dev/kgen/gen/compile"
	"github.com/kgen-dev/kgen/gen/emit"
	"github.com/kgen-dev/kgen/gen/expand"
	"github.com/kgen-dev/kgen/gen/render"
	"github.com/kgen-dev/kgen/gen/spec"
	"github.com/kgen-dev/kgen/gen/sync"
)

// Options configure a run.
type Options struct {
	// Root is the module root (holding go.mod, templates/, generated/).
	Root string
	// Templates overrides the templates tree (default Root/templates).
	Templates fs.FS
	// CacheDir for compiler outputs; "" uses compile.DefaultCacheDir().
	CacheDir string
	// Jobs bounds parallel compiles (0: all cores).
	Jobs int
	// SourcesOnly (check) compares everything but the compiled blobs, so a
	// machine with another glslang can still check the sources.
	SourcesOnly bool
	// SkipHIPCheck skips the clang validity check of HIP sources.
	SkipHIPCheck bool
	// Log receives progress lines; nil discards them.
	Log io.Writer
}

// GeneratedDir is Root/generated.
func (o *Options) GeneratedDir() string { return filepath.Join(o.Root, "generated") }

func (o *Options) logf(format string, args ...any) {
	if o.Log != nil {
		fmt.Fprintf(o.Log, format+"\n", args...)
	}
}

func (o *Options) templates() fs.FS {
	if o.Templates != nil {
		return o.Templates
	}
	return os.DirFS(filepath.Join(o.Root, "templates"))
}

// FindRoot walks up from dir to the directory holding kgen's go.mod.
func FindRoot(dir string) (string, error) {
	d, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for {
		b, err := os.ReadFile(filepath.Join(d, "go.mod"))
		if err == nil && strings.Contains(string(b), "module github.com/kgen-dev/kgen\n") {
			return d, nil
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", fmt.Errorf("no kgen module root (go.mod with module github.com/kgen-dev/kgen) above %s", dir)
		}
		d = parent
	}
}

// Plan is the spec and its expansion: what would be generated.
type Plan struct {
	Spec     *spec.Spec
	Variants []*expand.Variant
}

// Load reads the spec and expands it.
func Load(o *Options) (*Plan, error) {
	s, err := spec.Load(o.templates(), "templates")
	if err != nil {
		return nil, err
	}
	vs, err := expand.Expand(s)
	if err != nil {
		return nil, err
	}
	if err := expand.CheckRules(s, vs); err != nil {
		return nil, err
	}
	return &Plan{Spec: s, Variants: vs}, nil
}

// Output is the full generated file set, in memory.
type Output struct {
	Plan      *Plan
	Files     map[string][]byte // path under generated/ -> bytes
	Artifacts []*emit.Artifact
	Tools     map[string]string
	Compiled  int // compiles run (cache misses)
	Cached    int // cache hits
}

// Build renders and compiles everything in memory. With committed != nil
// (check --sources-only), SPIR-V is not compiled: the committed blobs and
// tool versions stand in for them.
func Build(ctx context.Context, o *Options, committed map[string][]byte) (*Output, error) {
	plan, err := Load(o)
	if err != nil {
		return nil, err
	}
	srcs, err := render.Render(plan.Spec, o.templates(), plan.Variants)
	if err != nil {
		return nil, err
	}
	if err := uniquePaths(srcs); err != nil {
		return nil, err
	}
	// Checked last, so a spec's other mistakes are reported first: a family
	// the runtime cannot launch or verify is not written.
	if err := spec.CheckContracts(plan.Spec); err != nil {
		return nil, err
	}
	tc := &compile.Toolchain{}
	tools := map[string]string{}
	var committedTools map[string]string
	if committed != nil {
		m, err := emit.ReadManifest(committed[emit.ManifestPath])
		if err != nil {
			return nil, fmt.Errorf("generated/%s: %w", emit.ManifestPath, err)
		}
		committedTools = m.Tools
		tools = m.Tools
	} else {
		if tc.Glslang, tc.SpirvVal, err = compile.FindGlslang(ctx); err != nil {
			return nil, err
		}
		tools["glslang"] = tc.Glslang.Version
		tools["spirv-val"] = tc.SpirvVal.Version
	}
	if o.SkipHIPCheck && committedTools == nil {
		// Nothing was checked with clang: keep the version that last did.
		if b, err := os.ReadFile(filepath.Join(o.GeneratedDir(), emit.ManifestPath)); err == nil {
			if m, err := emit.ReadManifest(b); err == nil && m.Tools["clang"] != "" {
				tools["clang"] = m.Tools["clang"]
			}
		}
	}
	if !o.SkipHIPCheck {
		if tc.Clang, err = compile.FindClang(ctx); err != nil {
			return nil, err
		}
		tc.HIPInclude = compile.HIPHeaders()
		if committedTools == nil {
			tools["clang"] = tc.Clang.Version
		}
	}
	cacheDir := o.CacheDir
	if cacheDir == "" {
		cacheDir = compile.DefaultCacheDir()
	}
	cache := &compile.Cache{Dir: cacheDir}
	var header []byte
	var jobs []*compile.Job
	for _, s := range srcs {
		if s.Kind == render.KindHeader {
			header = s.Text
		}
	}
	for _, s := range srcs {
		switch s.Kind {
		case render.KindGLSL:
			if committed != nil {
				continue
			}
			jobs = append(jobs, &compile.Job{Name: s.Path, Source: s.Text, Kind: "spirv", Variants: names(s.Variants)})
		case render.KindHIP:
			if o.SkipHIPCheck || plan.Spec.Arch(s.Arch).Target != "amdgcn" {
				continue // CUDA-target sources are built by nvcc where CUDA is
			}
			jobs = append(jobs, &compile.Job{Name: s.Path, Source: s.Text, Kind: "hip-syntax", Arch: s.Arch, Header: header,
				Variants: names(s.Variants), Lines: kernelLines(s.Text)})
		}
	}
	start := time.Now()
	c := &compile.Compiler{Tools: tc, Cache: cache, Jobs: o.Jobs}
	c.Progress = func(done, total int, r *compile.Result) {
		if !r.Cached {
			o.logf("compiled %d/%d %s (%s)", done, total, r.Job.Name, r.Job.Kind)
		}
	}
	results, err := c.Run(ctx, jobs)
	if err != nil {
		return nil, err
	}
	o.logf("compile: %d jobs, %d compiled, %d cached, %s", len(jobs), cache.Misses, cache.Hits, time.Since(start).Round(time.Millisecond))
	spv := map[string][]byte{}
	for _, r := range results {
		if r.Job.Kind == "spirv" {
			spv[r.Job.Name] = r.Output
		}
	}

	out := &Output{Plan: plan, Files: map[string][]byte{}, Tools: tools, Compiled: cache.Misses, Cached: cache.Hits}
	artifactOf := map[string]*emit.Artifact{}
	add := func(a *emit.Artifact) {
		out.Artifacts = append(out.Artifacts, a)
		out.Files[a.Path] = a.Bytes
		for _, v := range a.Variants {
			artifactOf[v.Key()] = a
		}
	}
	for _, s := range srcs {
		switch s.Kind {
		case render.KindHeader:
			add(&emit.Artifact{Path: s.Path, Bytes: s.Text, InputsHash: s.InputsHash})
		case render.KindHIP:
			add(&emit.Artifact{Path: s.Path, Bytes: s.Text, InputsHash: s.InputsHash, Variants: s.Variants})
		case render.KindGLSL:
			// The GLSL is committed for review; the table points at the blob.
			add(&emit.Artifact{Path: s.Path, Bytes: s.Text, InputsHash: s.InputsHash})
			blobPath := "spirv/" + s.Blob + ".spv"
			b := spv[s.Path]
			if committed != nil {
				b = committed[blobPath]
				if b == nil {
					return nil, fmt.Errorf("generated/%s is missing (with --sources-only the committed blobs stand in for compiling)", blobPath)
				}
			}
			add(&emit.Artifact{Path: blobPath, Bytes: b, InputsHash: emit.Hash(s.Text), Tool: "glslang", Variants: s.Variants})
		}
	}
	table, err := emit.Table(plan.Spec, plan.Variants, artifactOf)
	if err != nil {
		return nil, err
	}
	tableArt := &emit.Artifact{Path: emit.TablePath, Bytes: table}
	out.Files[tableArt.Path] = table
	out.Artifacts = append(out.Artifacts, tableArt)
	hdr, err := emit.CHeader(plan.Spec, plan.Variants, artifactOf)
	if err != nil {
		return nil, err
	}
	hdrArt := &emit.Artifact{Path: emit.CHeaderPath, Bytes: hdr}
	out.Files[hdrArt.Path] = hdr
	out.Artifacts = append(out.Artifacts, hdrArt)
	man, err := emit.ManifestJSON(out.Artifacts, tools)
	if err != nil {
		return nil, err
	}
	out.Files[emit.ManifestPath] = man
	return out, nil
}

// uniquePaths refuses two sources (or blobs) with one path: names joined
// with "_" can collide (family a_b on arch c, family a on arch b_c), and
// one would silently replace the other in generated/.
func uniquePaths(srcs []*render.Source) error {
	seen := map[string]*render.Source{}
	for _, s := range srcs {
		paths := []string{s.Path}
		if s.Kind == render.KindGLSL {
			paths = append(paths, "spirv/"+s.Blob+".spv")
		}
		for _, p := range paths {
			if prev, dup := seen[p]; dup && len(s.Variants) > 0 {
				return &expand.Error{Pos: s.Variants[0].Family.Pos, Msg: fmt.Sprintf("generated/%s would hold both %s and %s: rename a family, arch or axis value so that their names differ",
					p, describe(prev), describe(s))}
			}
			seen[p] = s
		}
	}
	return nil
}

func describe(s *render.Source) string {
	if len(s.Variants) == 0 {
		return s.Path
	}
	v := s.Variants[0]
	if s.Kind == render.KindHIP {
		return fmt.Sprintf("family %s on %s", v.Family.Name, v.Arch.Name)
	}
	return fmt.Sprintf("family %s's blob for %s", v.Family.Name, v.Name)
}

func names(vs []*expand.Variant) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = v.Name
	}
	return out
}

// kernelLines maps each line of a HIP source that opens a kernel to the
// kernel's name, so a compiler error can name its variant.
func kernelLines(src []byte) map[int]string {
	m := map[int]string{}
	for i, line := range strings.Split(string(src), "\n") {
		if !strings.HasPrefix(line, "KG_KERNEL(") {
			continue
		}
		rest := line[strings.Index(line, ")")+1:]
		name, _, _ := strings.Cut(strings.TrimSpace(rest), "(")
		m[i+1] = name
		m[i+2] = name // the body line holding the instantiation
	}
	return m
}

// Result of Generate.
type Result struct {
	Output           *Output
	Written, Removed int
}

// Generate builds everything and writes generated/ atomically.
func Generate(ctx context.Context, o *Options) (*Result, error) {
	unlock, err := lock(o.Root)
	if err != nil {
		return nil, err
	}
	defer unlock()
	if err := sync.Recover(o.GeneratedDir()); err != nil {
		return nil, err
	}
	out, err := Build(ctx, o, nil)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	w, r, err := sync.Write(o.GeneratedDir(), out.Files)
	if err != nil {
		return nil, err
	}
	return &Result{Output: out, Written: w, Removed: r}, nil
}

// Drift is what Check found.
type Drift struct {
	Output  *Output
	Changes []sync.Change
}

// Check renders in memory and compares with generated/. A glslang (or
// clang) other than the manifest's is a *compile.ToolError, unless
// SourcesOnly.
func Check(ctx context.Context, o *Options) (*Drift, error) {
	have, err := sync.Read(o.GeneratedDir())
	if err != nil {
		return nil, err
	}
	var committed map[string][]byte
	if o.SourcesOnly {
		committed = have
		if have[emit.ManifestPath] == nil {
			return nil, fmt.Errorf("generated/%s is missing: run `go generate ./...`", emit.ManifestPath)
		}
	} else if mb := have[emit.ManifestPath]; mb != nil {
		m, err := committedManifest(mb)
		if err != nil {
			return nil, err
		}
		if err := checkTools(ctx, o, m.Tools); err != nil {
			return nil, err
		}
	}
	out, err := Build(ctx, o, committed)
	if err != nil {
		return nil, err
	}
	changes, err := sync.Diff(o.GeneratedDir(), out.Files)
	if err != nil {
		return nil, err
	}
	return &Drift{Output: out, Changes: changes}, nil
}

// committedManifest reads the committed manifest for Check. It records the
// tool versions the check compares against, so one that does not parse, or
// records no glslang version, is drift (exit 1): skipping the version check
// instead would let any glslang through.
func committedManifest(b []byte) (*emit.Manifest, error) {
	const regen = "run `go generate ./...` with the pinned toolchain and commit generated/"
	m, err := emit.ReadManifest(b)
	if err != nil {
		return nil, fmt.Errorf("generated/%s does not parse (%v), so the tool versions it records cannot be checked; %s", emit.ManifestPath, err, regen)
	}
	if m.Tools["glslang"] == "" {
		return nil, fmt.Errorf("generated/%s records no glslang version, so the tool versions cannot be checked; %s", emit.ManifestPath, regen)
	}
	return m, nil
}

func checkTools(ctx context.Context, o *Options, want map[string]string) error {
	g, _, err := compile.FindGlslang(ctx)
	if err != nil {
		return err
	}
	if w := want["glslang"]; w != "" && w != g.Version {
		return &compile.ToolError{Tool: "glslangValidator", Have: g.Version, Want: w, Install: compile.InstallGlslang}
	}
	if o.SkipHIPCheck {
		return nil
	}
	c, err := compile.FindClang(ctx)
	if err != nil {
		return err
	}
	if w := want["clang"]; w != "" && w != c.Version {
		return &compile.ToolError{Tool: "clang++-19", Have: c.Version, Want: w, Install: compile.InstallClang}
	}
	return nil
}

// IsInputError reports whether err is a problem with the user's input
// (spec files, flags): exit code 2.
func IsInputError(err error) bool {
	var se *spec.Error
	var ee *expand.Error
	return errors.As(err, &se) || errors.As(err, &ee)
}

// IsToolError reports whether err is a missing or mismatched tool: exit 3.
func IsToolError(err error) bool {
	var te *compile.ToolError
	return errors.As(err, &te)
}

// SortedPaths returns the file set's paths, sorted.
func (o *Output) SortedPaths() []string {
	ps := make([]string, 0, len(o.Files))
	for p := range o.Files {
		ps = append(ps, p)
	}
	sort.Strings(ps)
	return ps
}

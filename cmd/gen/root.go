package main

import (
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/pmezard/go-difflib/difflib"
	"github.com/spf13/cobra"

	"github.com/kgen-dev/kgen/gen"
	"github.com/kgen-dev/kgen/gen/emit"
	"github.com/kgen-dev/kgen/gen/sync"
)

type rootFlags struct {
	check, sourcesOnly, quiet, skipHIP bool
	root, cacheDir                     string
	jobs                               int
}

func newRootCmd() *cobra.Command {
	f := &rootFlags{}
	cmd := &cobra.Command{
		Use:   "gen",
		Short: "Generate decode kernels (HIP sources, SPIR-V blobs) from kgen's templates",
		Long: `gen expands the kernel templates in templates/ across every axis value each
arch or device class emits, compiles them with the real compilers, and writes
generated/: HIP sources, GLSL and SPIR-V blobs, the Go variant table and
manifest.json. Writing is atomic: a failed or interrupted run leaves
generated/ exactly as it was. Compiles are cached by content hash
($KGEN_CACHE, default ~/.cache/kgen) and run in parallel.

Exit codes: 0 ok; 1 drift, compile or verification failure; 2 invalid input
(spec files, flags); 3 a tool is missing or not the pinned version.`,
		Example: `  go generate ./...                 # the usual way: runs gen from generated/generate.go
  go run ./cmd/gen                  # regenerate generated/
  go run ./cmd/gen --check          # CI gate: exit 1 and a diff if generated/ is stale
  go run ./cmd/gen --check --sources-only   # with another glslang: skip the blobs
  go run ./cmd/gen list --arch gfx1200 --family gemv
  go run ./cmd/gen verify           # run every SPIR-V variant on the local Vulkan device`,
		Args:          cobra.NoArgs,
		SilenceUsage:  true,
		SilenceErrors: true,
		RunE: func(cmd *cobra.Command, _ []string) error {
			o, err := f.options(cmd)
			if err != nil {
				return err
			}
			if f.check {
				return runCheck(cmd, o)
			}
			if f.sourcesOnly {
				return &exitError{2, fmt.Errorf("--sources-only only applies with --check")}
			}
			return runGenerate(cmd, o)
		},
	}
	cmd.Flags().BoolVar(&f.check, "check", false, "render in memory and compare with generated/; exit 1 on drift")
	cmd.Flags().BoolVar(&f.sourcesOnly, "sources-only", false, "with --check: compare everything but the compiled SPIR-V blobs")
	cmd.Flags().BoolVar(&f.skipHIP, "skip-hip-check", false, "do not check HIP sources with clang (not recommended)")
	cmd.PersistentFlags().BoolVarP(&f.quiet, "quiet", "q", false, "print only errors and the summary")
	cmd.PersistentFlags().StringVar(&f.root, "root", "", "module root (default: found from the working directory)")
	cmd.PersistentFlags().StringVar(&f.cacheDir, "cache", "", "compile cache directory (default $KGEN_CACHE or ~/.cache/kgen)")
	cmd.PersistentFlags().IntVarP(&f.jobs, "jobs", "j", 0, "parallel compiles (default: all cores)")
	cmd.AddCommand(newListCmd(f), newVerifyCmd(), newExplainCmd(), newBenchCmd(), newTuneCmd())
	// Bad flags and stray arguments are invalid input: exit 2.
	cmd.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return &exitError{2, err} })
	for _, c := range append(cmd.Commands(), cmd) {
		c.Args = noArgs
	}
	return cmd
}

func (f *rootFlags) options(cmd *cobra.Command) (*gen.Options, error) {
	root := f.root
	if root == "" {
		wd, _ := os.Getwd()
		r, err := gen.FindRoot(wd)
		if err != nil {
			return nil, &exitError{2, err}
		}
		root = r
	}
	o := &gen.Options{Root: root, CacheDir: f.cacheDir, Jobs: f.jobs, SourcesOnly: f.sourcesOnly, SkipHIPCheck: f.skipHIP}
	if !f.quiet {
		o.Log = cmd.ErrOrStderr()
	}
	return o, nil
}

func runGenerate(cmd *cobra.Command, o *gen.Options) error {
	start := time.Now()
	res, err := gen.Generate(cmd.Context(), o)
	if err != nil {
		if cmd.Context().Err() != nil {
			return fmt.Errorf("interrupted; generated/ is unchanged")
		}
		return fmt.Errorf("%w\ngenerated/ is unchanged", err)
	}
	out := res.Output
	fmt.Fprintf(cmd.OutOrStdout(), "generated %d variants in %d files (%d written, %d removed, %d compiled, %d cached) in %s\n",
		len(out.Plan.Variants), len(out.Files), res.Written, res.Removed, out.Compiled, out.Cached, time.Since(start).Round(time.Millisecond))
	return nil
}

func runCheck(cmd *cobra.Command, o *gen.Options) error {
	d, err := gen.Check(cmd.Context(), o)
	if err != nil {
		return err
	}
	w := cmd.OutOrStdout()
	if len(d.Changes) == 0 {
		fmt.Fprintf(w, "generated/ is up to date (%d files)\n", len(d.Output.Files))
		return nil
	}
	counts := map[string]int{}
	for _, c := range d.Changes {
		counts[c.Kind]++
		printChange(w, c)
	}
	fmt.Fprintf(w, "stale generated files: %d changed, %d missing, %d orphaned\nrun `go generate ./...` (or `go run ./cmd/gen`) and commit generated/\n",
		counts["changed"], counts["missing"], counts["orphan"])
	return &exitError{1, errSilent}
}

func printChange(w interface{ Write([]byte) (int, error) }, c sync.Change) {
	switch c.Kind {
	case "missing":
		fmt.Fprintf(w, "missing: generated/%s (the spec produces it)\n", c.Path)
	case "orphan":
		fmt.Fprintf(w, "orphan: generated/%s (no spec produces it)\n", c.Path)
	case "changed":
		if isText(c.Path) {
			ud := difflib.UnifiedDiff{A: difflib.SplitLines(string(c.Old)), B: difflib.SplitLines(string(c.New)),
				FromFile: "generated/" + c.Path + " (committed)", ToFile: "generated/" + c.Path + " (from templates)", Context: 3}
			text, _ := difflib.GetUnifiedDiffString(ud)
			fmt.Fprintf(w, "changed: generated/%s\n%s", c.Path, text)
		} else {
			fmt.Fprintf(w, "changed: generated/%s (binary) committed sha256 %s, from templates sha256 %s\n", c.Path, emit.Hash(c.Old), emit.Hash(c.New))
		}
	}
}

func isText(p string) bool {
	return !strings.HasSuffix(p, ".spv")
}

// noArgs is cobra.NoArgs with exit code 2.
func noArgs(cmd *cobra.Command, args []string) error {
	if err := cobra.NoArgs(cmd, args); err != nil {
		return &exitError{2, err}
	}
	return nil
}

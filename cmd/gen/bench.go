package main

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"

	"github.com/spf13/cobra"

	kruntime "github.com/kgen-dev/kgen/runtime"
	"github.com/kgen-dev/kgen/runtime/bench"
	"github.com/kgen-dev/kgen/runtime/driver"
)

func newBenchCmd() *cobra.Command {
	var arch, module, shapes, dtypes, out string
	var reps int
	var tunePath string
	cmd := &cobra.Command{
		Use:   "bench",
		Short: "Time the heuristic and the tuned GEMV pick per suite shape on a GPU (CUDA driver API)",
		Long: `bench times, for every shape of a decode-shapes.yaml suite, every token
count and dtype, the variant runtime.Select picks (heuristic) and every other
eligible variant with the same pack and tokens (the fastest is the tuned
pick): median of --reps GPU-event timings, weights rotated across buffers
(>= 512 MiB per case) so launches stream from device memory. It writes JSON;
bench/cublas.py measures cuBLAS and copy bandwidth for the same cases.`,
		Example: `  nvcc -x cu -std=c++17 -arch=sm_90 -O3 -cubin -o gemv_sm90.cubin generated/hip/gemv_sm90.hip
  gen bench --arch sm90 --module gemv_sm90.cubin --dtypes bf16 --out bench.json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			suite, err := bench.LoadSuite(shapes)
			if err != nil {
				return &exitError{2, err}
			}
			image, err := os.ReadFile(module)
			if err != nil {
				return &exitError{2, err}
			}
			ctx, err := driver.Open(driver.CUDA, 0)
			if err != nil {
				return &exitError{3, err}
			}
			defer ctx.Close()
			mod, err := ctx.LoadModule(image)
			if err != nil {
				return err
			}
			dev, err := kruntime.ArchDevice(arch)
			if err != nil {
				return &exitError{2, err}
			}
			info := ctx.Info()
			dev.Name, dev.ComputeUnits, dev.MaxWorkgroup = info.Name, info.ComputeUnits, info.MaxThreadsPerBlock
			dev.Driver = info.DriverString()
			r := &bench.Runner{Ctx: ctx, Mod: mod, Dev: dev, Reps: reps, Rng: rand.New(rand.NewPCG(7, 11))}
			defer r.Close()
			cache, note := kruntime.LoadTuneCache(tunePath)
			if note != "" {
				fmt.Fprintln(cmd.ErrOrStderr(), "gen: "+note)
			}
			var results []*bench.Result
			for _, c := range suite.Cases(strings.Split(dtypes, ",")) {
				res, err := r.Run(c, cache)
				if err != nil {
					return fmt.Errorf("%s/%s m=%d %s: %w", c.Model, c.Layer, c.M, c.Dtype, err)
				}
				fmt.Fprintf(cmd.OutOrStdout(), "%-12s %-8s %6dx%-6d m=%d %-13s heuristic %-28s %8.1f us  tuned %-28s %8.1f us %6.0f GB/s\n",
					c.Model, c.Layer, c.N, c.K, c.M, c.Dtype, res.Heuristic, res.HeuristicUS, res.Tuned, res.TunedUS, res.TunedGBps)
				results = append(results, res)
			}
			if tunePath != "" {
				if err := cache.Save(tunePath); err != nil {
					return err
				}
			}
			b, _ := json.MarshalIndent(map[string]any{"device": info.Name, "driver": info.DriverString(), "arch": arch, "results": results}, "", " ")
			return os.WriteFile(out, b, 0o644)
		},
	}
	cmd.Flags().StringVar(&arch, "arch", "sm90", "HIP-source arch of the module")
	cmd.Flags().StringVar(&module, "module", "", "compiled module of generated/hip/gemv_<arch>.hip")
	cmd.Flags().StringVar(&shapes, "shapes", "bench/decode-shapes.yaml", "shape suite")
	cmd.Flags().StringVar(&dtypes, "dtypes", "bf16,f16,fp8e4m3_bf16", "comma-separated dtypes")
	cmd.Flags().StringVar(&out, "out", "bench.json", "JSON output")
	cmd.Flags().IntVar(&reps, "reps", 20, "timed repetitions per variant (median)")
	cmd.Flags().StringVar(&tunePath, "tune-cache", "", "also record the tuned picks in this tuning cache file")
	return cmd
}

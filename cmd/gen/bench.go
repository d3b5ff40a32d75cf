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
	"github.com/kgen-dev/kgen/runtime/verify"
)

func newBenchCmd() *cobra.Command {
	var backend, arch, shapes, dtypes, out, tunePath string
	var modules []string
	var reps int
	cmd := &cobra.Command{
		Use:   "bench",
		Short: "Time the heuristic and the tuned GEMV pick per suite shape on a GPU",
		Long: `bench times, for every shape of a decode-shapes.yaml suite, every token
count and dtype, the variant runtime.Select picks (heuristic) and the
candidates runtime.Tune sweeps (eligible, same pack and tokens; the fastest is
the tuned pick): median of --reps GPU timings (CUDA events or Vulkan
timestamps), weights rotated across buffers (>= 512 MiB per case) so launches
stream from device memory, random data. It writes JSON; bench/cublas.py
measures cuBLAS and copy bandwidth for the same cases in the same run.`,
		Example: `  nvcc -x cu -std=c++17 -arch=sm_90 -O3 -cubin -o gemv_sm90.cubin generated/hip/gemv_sm90.hip
  gen bench --backend cuda --arch sm90 --module gemv_sm90.cubin --dtypes bf16 --out cuda.json
  gen bench --backend cuda --module gemv_part1.cubin,gemv_part2.cubin --module gemv_part3.cubin --out cuda.json
  gen bench --backend vulkan --dtypes bf16 --out vulkan.json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			suite, err := bench.LoadSuite(shapes)
			if err != nil {
				return &exitError{2, err}
			}
			var timer kruntime.Timer
			var dev kruntime.Device
			switch backend {
			case "cuda":
				ctx, mod, d, err := openCUDA(arch, modules)
				if err != nil {
					return err
				}
				defer ctx.Close()
				dev = d
				r := &bench.Runner{Ctx: ctx, Mod: mod, Dev: dev, Reps: reps, Rng: rand.New(rand.NewPCG(7, 11))}
				defer r.Close()
				timer = r
			case "vulkan":
				d, closeDev, err := openVulkan(0)
				if err != nil {
					return err
				}
				defer closeDev()
				vr, err := verify.NewVulkanRunner(d)
				if err != nil {
					return err
				}
				defer vr.Close()
				dev = vr.Device()
				t := &bench.VulkanTimer{R: vr, Reps: reps, Rng: rand.New(rand.NewPCG(7, 11))}
				defer t.Close()
				timer = t
			default:
				return &exitError{2, fmt.Errorf("--backend %q; allowed: cuda, vulkan", backend)}
			}
			cache, note := kruntime.LoadTuneCache(tunePath)
			if note != "" {
				fmt.Fprintln(cmd.ErrOrStderr(), "gen: "+note)
			}
			var results []*bench.Result
			for _, c := range suite.Cases(strings.Split(dtypes, ",")) {
				res, err := bench.Run(timer, dev, c, cache)
				if err != nil {
					return fmt.Errorf("%s/%s m=%d %s: %w", c.Model, c.Layer, c.M, c.Dtype, err)
				}
				fmt.Fprintf(cmd.OutOrStdout(), "%-12s %-8s %6dx%-6d m=%d %-13s heuristic %-28s %8.1f us  tuned %-28s %8.1f us %6.0f GB/s\n",
					c.Model, c.Layer, c.N, c.K, c.M, c.Dtype, res.Heuristic, res.HeuristicUS, res.Tuned, res.TunedUS, res.TunedGBps)
				results = append(results, res)
				if err := writeBench(out, dev, backend, results); err != nil { // after each case: a cut-short run keeps its numbers
					return err
				}
			}
			if tunePath != "" {
				if err := cache.Save(tunePath); err != nil {
					return err
				}
			}
			return writeBench(out, dev, backend, results)
		},
	}
	cmd.Flags().StringVar(&backend, "backend", "cuda", "cuda (HIP sources through nvcc) or vulkan (SPIR-V)")
	cmd.Flags().StringVar(&arch, "arch", "sm90", "cuda: HIP-source arch of the module")
	cmd.Flags().StringSliceVar(&modules, "module", nil, "cuda: compiled modules of generated/hip/<family>_<arch>.hip files or parts of them; repeatable, comma-separated (kernels are looked up across all)")
	cmd.Flags().StringVar(&shapes, "shapes", "bench/decode-shapes.yaml", "shape suite")
	cmd.Flags().StringVar(&dtypes, "dtypes", "bf16,f16,fp8e4m3_bf16", "comma-separated dtypes")
	cmd.Flags().StringVar(&out, "out", "bench.json", "JSON output")
	cmd.Flags().IntVar(&reps, "reps", 20, "timed repetitions per variant (median)")
	cmd.Flags().StringVar(&tunePath, "tune-cache", "", "also record the tuned picks in this tuning cache file")
	return cmd
}

func writeBench(path string, dev kruntime.Device, backend string, results []*bench.Result) error {
	b, err := json.MarshalIndent(map[string]any{"device": dev.Name, "driver": dev.Driver, "backend": backend, "arch": dev.Arch, "results": results}, "", " ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o644)
}

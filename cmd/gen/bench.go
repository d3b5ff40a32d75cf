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
	var backend, arch, shapes, quantShapes, families, dtypes, out, tunePath string
	var modules []string
	var reps, rotateMiB int
	cmd := &cobra.Command{
		Use:   "bench",
		Short: "Time the heuristic and the tuned GEMV or quantizer pick per suite shape on a GPU",
		Long: `bench times, for every shape of a decode-shapes.yaml suite, every token
count and dtype, the variant runtime.Select picks (heuristic) and the
candidates runtime.Tune sweeps (eligible, same pack and tokens; the fastest is
the tuned pick): median of --reps GPU timings (CUDA events or Vulkan
timestamps), weights rotated across buffers (>= 512 MiB per case) so launches
stream from device memory, random data. It writes JSON; bench/cublas.py
measures cuBLAS and copy bandwidth for the same cases in the same run.

--family quant_q8k,quant_q8_1 benchmarks the activation quantizers instead,
over the rows x k cases of --quant-shapes (bench/quant-shapes.yaml) and
--dtypes (default f32,bf16 for them): every tile (thread, sg, multi, wg) is
timed, input rows rotate over >= 512 MiB (CUDA: slots of one pool; Vulkan: up
to 512 buffer copies), and each result holds the heuristic and tuned picks,
every tile's time, bytes moved (input read + output written), GB/s and the
speedup of the best tile over the thread-per-block baseline. GEMV and the
quantizers are separate runs (separate --out).`,
		Example: `  nvcc -x cu -std=c++17 -arch=sm_90 -O3 -cubin -o gemv_sm90.cubin generated/hip/gemv_sm90.hip
  gen bench --backend cuda --arch sm90 --module gemv_sm90.cubin --dtypes bf16 --out cuda.json
  gen bench --backend cuda --module gemv_part1.cubin,gemv_part2.cubin --module gemv_part3.cubin --out cuda.json
  gen bench --backend vulkan --dtypes bf16 --out vulkan.json
  nvcc -x cu -std=c++17 -arch=sm_90 -O3 -cubin -o q8k.cubin generated/hip/quant_q8k_sm90.hip
  nvcc -x cu -std=c++17 -arch=sm_90 -O3 -cubin -o q81.cubin generated/hip/quant_q8_1_sm90.hip
  gen bench --family quant_q8k,quant_q8_1 --backend cuda --module q8k.cubin,q81.cubin --dtypes f32,bf16 --out quant-cuda.json
  gen bench --family quant_q8k,quant_q8_1 --backend vulkan --out quant-vulkan.json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			fams := splitList(families)
			nquant := 0
			for _, f := range fams {
				switch {
				case kruntime.IsQuant(f):
					nquant++
				case f != "gemv":
					return &exitError{2, fmt.Errorf("--family %q; allowed: gemv, quant_q8k, quant_q8_1", f)}
				}
			}
			if len(fams) == 0 || nquant > 0 && nquant != len(fams) {
				return &exitError{2, fmt.Errorf("--family %q: give gemv, or quantizer families (quant_q8k,quant_q8_1), in one run", families)}
			}
			var suite *bench.Suite
			var qsuite *bench.QuantSuite
			var err error
			if nquant > 0 {
				if !cmd.Flags().Changed("dtypes") {
					dtypes = "f32,bf16"
				}
				qsuite, err = bench.LoadQuantSuite(quantShapes)
			} else {
				suite, err = bench.LoadSuite(shapes)
			}
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
				r := &bench.Runner{Ctx: ctx, Mod: mod, Dev: dev, Reps: reps, Rng: rand.New(rand.NewPCG(7, 11)), RotateBytes: rotateMiB << 20}
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
				t := &bench.VulkanTimer{R: vr, Reps: reps, Rng: rand.New(rand.NewPCG(7, 11)), RotateBytes: rotateMiB << 20}
				defer t.Close()
				timer = t
			default:
				return &exitError{2, fmt.Errorf("--backend %q; allowed: cuda, vulkan", backend)}
			}
			cache, note := kruntime.LoadTuneCache(tunePath)
			if note != "" {
				fmt.Fprintln(cmd.ErrOrStderr(), "gen: "+note)
			}
			if qsuite != nil {
				if err := benchQuant(cmd, timer, dev, backend, qsuite.Cases(fams, splitList(dtypes)), cache, out); err != nil {
					return err
				}
				if tunePath != "" {
					return cache.Save(tunePath)
				}
				return nil
			}
			var results []*bench.Result
			for _, c := range suite.Cases(splitList(dtypes)) {
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
	cmd.Flags().StringVar(&families, "family", "gemv", "gemv, or comma-separated quantizer families (quant_q8k,quant_q8_1)")
	cmd.Flags().StringVar(&shapes, "shapes", "bench/decode-shapes.yaml", "GEMV shape suite")
	cmd.Flags().StringVar(&quantShapes, "quant-shapes", "bench/quant-shapes.yaml", "quantizer cases (rows x k)")
	cmd.Flags().StringVar(&dtypes, "dtypes", "bf16,f16,fp8e4m3_bf16", "comma-separated dtypes (quantizers: f32,bf16 unless given)")
	cmd.Flags().StringVar(&out, "out", "bench.json", "JSON output")
	cmd.Flags().IntVar(&reps, "reps", 20, "timed repetitions per variant (median)")
	cmd.Flags().IntVar(&rotateMiB, "rotate-mib", 512, "quantizers: MiB of input the timed launches rotate over (past the L2)")
	cmd.Flags().StringVar(&tunePath, "tune-cache", "", "also record the tuned picks in this tuning cache file")
	return cmd
}

// benchQuant times the quantizer cases and writes their JSON after each.
func benchQuant(cmd *cobra.Command, timer kruntime.Timer, dev kruntime.Device, backend string, cases []bench.QuantCase, cache *kruntime.TuneCache, out string) error {
	var results []*bench.QuantResult
	for _, c := range cases {
		res, err := bench.RunQuant(timer, dev, c, cache)
		if err != nil {
			return fmt.Errorf("%s %s rows=%d k=%d: %w", c.Family, c.Dtype, c.Rows, c.K, err)
		}
		fmt.Fprintf(cmd.OutOrStdout(), "%-10s %-4s rows=%-5d k=%-6d thread %9.1f us  best %-6s %8.1f us %6.1fx %6.0f GB/s  heuristic %-24s %8.1f us  tuned %-24s\n",
			c.Family, c.Dtype, c.Rows, c.K, res.ThreadUS, res.BestTile, res.BestUS, res.Speedup, res.BestGBps, res.Heuristic, res.HeuristicUS, res.Tuned)
		results = append(results, res)
		if err := writeBench(out, dev, backend, results); err != nil { // after each case
			return err
		}
	}
	return nil
}

// splitList splits a comma-separated flag, dropping empty items.
func splitList(s string) []string {
	var out []string
	for _, x := range strings.Split(s, ",") {
		if x = strings.TrimSpace(x); x != "" {
			out = append(out, x)
		}
	}
	return out
}

func writeBench[R any](path string, dev kruntime.Device, backend string, results []R) error {
	b, err := json.MarshalIndent(map[string]any{"device": dev.Name, "driver": dev.Driver, "backend": backend, "arch": dev.Arch, "results": results}, "", " ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o644)
}

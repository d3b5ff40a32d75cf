package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"strings"

	"github.com/spf13/cobra"

	kruntime "github.com/kgen-dev/kgen/runtime"
	"github.com/kgen-dev/kgen/runtime/bench"
	"github.com/kgen-dev/kgen/runtime/verify"
)

// rowsDtypes are the dtypes of a rows x k run when --dtypes is not given.
const rowsDtypes = "f32,bf16"

func newBenchCmd() *cobra.Command {
	var backend, arch, shapes, quantShapes, families, dtypes, out, tunePath, launch, pair, timing string
	var modules []string
	var reps, rotateMiB, rounds int
	cmd := &cobra.Command{
		Use:   "bench",
		Short: "Time the heuristic and the tuned pick of any family per suite shape on a GPU",
		Long: `bench times, for every case of a shape suite, the variant runtime.Select
picks (heuristic) and the candidates runtime.Tune sweeps (eligible, same pack
and tokens; the fastest is the tuned pick), for any family of the table on
either backend, from the family's launch contract: median of --reps GPU
timings (CUDA events or Vulkan timestamps) of one launch per buffer copy,
every in and out buffer rotated over copies (>= --rotate-mib MiB a pass, at
most 64 copies) so launches stream from device memory, random finite data.
It writes JSON after each case; bench/cublas.py measures cuBLAS and copy
bandwidth for the same cases in the same run.

The family's contract decides the suite: a family whose ops read n (the
GEMV family) runs over --shapes (models x layers x token counts) and records
weight bytes, GB/s and every candidate's time; one whose contract never reads
n (the activation quantizers) runs over the rows x k cases of --quant-shapes
(--dtypes default f32,bf16 for them) and also records every tile's time,
bytes moved (input read + output written), GB/s and the speedup of the best
tile over the family's baseline (the thread-per-block tile). Give families of
one kind per run (separate --out). A case a family does not serve (Q8_K with
k not a multiple of 256) is reported as "not eligible: ..." and recorded in
the JSON's not_eligible list, and the run goes on.

--pair ACT also times, per case, the whole decode step of a family whose
input another family produces (fed_by in kernels.yaml: mmvq's Q8_1
activations come from quant_q8_1): the producer's launch on ACT (f32, f16,
bf16) activations, picked by runtime.Select, then the case's fastest
measured variant, one pair per buffer copy in the same timed pass (one CUDA
graph; one Vulkan command buffer, a barrier between the two dispatches),
the quantizer's output bound as the GEMV's input. The record gets pair_us,
pair_producer, pair_consumer and producer_us (the producer alone); give
--module the producer's module too on CUDA.

--timing ggml (Vulkan) times every variant as ggml's test-backend-ops perf
mode times an op, for a ratio to ggml timed the same way: one copy of every
buffer (the same weights every dispatch: a set under the L2 stays there),
the op repeated in one command buffer as many times as test-backend-ops
repeats it in its graph (2mnk-flop ops: min(8191, 1e11 / flops) + 1; the
record's dispatches), a barrier between dispatches, host wall clock from
submit to the fence wait over the dispatches (median of --reps submissions
after one warm-up). With --pair the producer runs once per submission, then
the repeated consumer: ggml quantizes a matmul's f32 activations to Q8_1
once per graph and reuses them for every repeat on the same input. The
JSON records "timing"; the default, rotate, is the timing described above.

On Vulkan, where the driver reports what it compiled a pipeline into
(VK_KHR_pipeline_executable_properties: NVIDIA's register count and binary
size among others), the JSON keeps it per timed variant in pipeline_stats.
Every candidate's pipeline is built before the first is timed: with a
cold shader cache, NVIDIA's driver ran pipelines timed as each was built
2-5x slow (run h100-2026-12-06k).

KGEN_FORCE (as gen explain reads it) narrows the candidates of its family
for an A/B run: KGEN_FORCE=mmvq:tokens=8 times the tokens-8 tiles where the
heuristic would pick tokens-5 ones. Each record then says "forced", and the
narrowed sweep's winner is not written to --tune-cache. A value naming no
family or variant of the table is exit 2.`,
		Example: `  nvcc -x cu -std=c++17 -arch=sm_90 -O3 -cubin -o gemv_sm90.cubin generated/hip/gemv_sm90.hip
  gen bench --backend cuda --arch sm90 --module gemv_sm90.cubin --dtypes bf16 --out cuda.json
  gen bench --backend cuda --module gemv_part1.cubin,gemv_part2.cubin --module gemv_part3.cubin --out cuda.json
  gen bench --backend vulkan --dtypes bf16 --out vulkan.json
  nvcc -x cu -std=c++17 -arch=sm_90 -O3 -cubin -o q8k.cubin generated/hip/quant_q8k_sm90.hip
  nvcc -x cu -std=c++17 -arch=sm_90 -O3 -cubin -o q81.cubin generated/hip/quant_q8_1_sm90.hip
  gen bench --family quant_q8k,quant_q8_1 --backend cuda --module q8k.cubin,q81.cubin --dtypes f32,bf16 --out quant-cuda.json
  gen bench --family quant_q8k,quant_q8_1 --backend vulkan --out quant-vulkan.json
  gen bench --family mmvq --dtypes q4_k --pair f32 --backend cuda --module mmvq.cubin,q81.cubin --out mmvq-pair.json
  gen bench --family mmvq --dtypes q4_k,q6_k,q8_0 --shapes bench/mmvq-ggml.yaml --pair f32 --backend vulkan --timing ggml --reps 5 --out mmvq-ggml-style.json
  KGEN_FORCE=mmvq:tokens=8 gen bench --family mmvq --dtypes q6_k --shapes bench/vk-probe-t5.yaml --backend vulkan --out t8.json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := kruntime.ForceError(); err != nil {
				return &exitError{2, err}
			}
			cases, err := loadCases(splitList(families), shapes, quantShapes, dtypes, cmd.Flags().Changed("dtypes"))
			if err != nil {
				return err
			}
			if cmd.Flags().Changed("pair") {
				if err := bench.CheckPair(splitList(families), pair); err != nil {
					return &exitError{2, fmt.Errorf("--pair: %w", err)}
				}
			}
			if err := bench.CheckTiming(timing); err != nil {
				return &exitError{2, fmt.Errorf("--timing: %w", err)}
			}
			if timing == "" {
				timing = bench.TimingRotate
			}
			if timing == bench.TimingGGML && backend != "vulkan" {
				return &exitError{2, fmt.Errorf("--timing ggml: Vulkan only (ggml's peer is its Vulkan backend); --backend is %q", backend)}
			}
			mode, err := bench.ParseLaunchMode(launch)
			if err != nil {
				return &exitError{2, fmt.Errorf("--launch: %w", err)}
			}
			if backend == "vulkan" {
				// Vulkan records every timed dispatch in one command buffer:
				// there is no host launch per kernel to remove.
				mode = "command-buffer"
			}
			var timer kruntime.Timer
			var dev kruntime.Device
			var stats map[string]map[string]float64 // Vulkan: the driver's pipeline statistics by variant
			switch backend {
			case "cuda":
				ctx, mod, d, err := openCUDA(arch, modules)
				if err != nil {
					return err
				}
				defer ctx.Close()
				dev = d
				r := &bench.Runner{Ctx: ctx, Mod: mod, Dev: dev, Reps: reps, Rng: rand.New(rand.NewPCG(7, 11)), RotateBytes: rotateMiB << 20, Launch: mode}
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
				t := &bench.VulkanTimer{Dev: d, R: vr, Reps: reps, Rng: rand.New(rand.NewPCG(7, 11)), RotateBytes: rotateMiB << 20, Timing: timing}
				defer t.Close()
				// Where the driver reports what it compiled a pipeline
				// into, the JSON keeps it per variant (pipeline_stats).
				if d.Info().PipelineStatistics {
					if err := d.CaptureStatistics(true); err != nil {
						return err
					}
					t.Stats = map[string]map[string]float64{}
					stats = t.Stats
				}
				timer = t
			default:
				return &exitError{2, fmt.Errorf("--backend %q; allowed: cuda, vulkan", backend)}
			}
			cache, note := kruntime.LoadTuneCache(tunePath)
			if note != "" {
				fmt.Fprintln(cmd.ErrOrStderr(), "gen: "+note)
			}
			write := func(results []bench.Record, skipped []bench.Skipped) error {
				return writeBench(out, dev, backend, string(mode), timing, reps, rounds, results, skipped, stats)
			}
			if err := runBench(cmd.OutOrStdout(), timer, dev, cases, cache, write, pair, rounds); err != nil {
				return err
			}
			if tunePath != "" {
				return cache.Save(tunePath)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&backend, "backend", "cuda", "cuda (HIP sources through nvcc) or vulkan (SPIR-V)")
	cmd.Flags().StringVar(&arch, "arch", "sm90", "cuda: HIP-source arch of the module")
	cmd.Flags().StringSliceVar(&modules, "module", nil, "cuda: compiled modules of generated/hip/<family>_<arch>.hip files or parts of them; repeatable, comma-separated (kernels are looked up across all)")
	cmd.Flags().StringVar(&families, "family", "gemv", "comma-separated families of the table, of one suite kind (gen list shows them)")
	cmd.Flags().StringVar(&shapes, "shapes", "bench/decode-shapes.yaml", "suite of families whose ops read n (models x layers x token counts)")
	cmd.Flags().StringVar(&quantShapes, "quant-shapes", "bench/quant-shapes.yaml", "rows x k cases of families whose ops do not read n (the quantizers)")
	cmd.Flags().StringVar(&dtypes, "dtypes", "bf16,f16,fp8e4m3_bf16", "comma-separated dtypes (rows x k families: "+rowsDtypes+" unless given); a family runs the ones it has")
	cmd.Flags().StringVar(&out, "out", "bench.json", "JSON output")
	cmd.Flags().IntVar(&reps, "reps", 20, "timed repetitions per variant (median)")
	cmd.Flags().IntVar(&rounds, "rounds", kruntime.DefaultTuneRounds, "times the candidate list is timed, every other round in reverse order; each variant keeps its fastest round's median (order effects cost no candidate its place)")
	cmd.Flags().StringVar(&launch, "launch", "graph", "cuda: graph (the timed launches captured once into a CUDA graph, replays timed, as engines run decode) or eager (each launch from the host); Vulkan always records the dispatches in one command buffer")
	cmd.Flags().IntVar(&rotateMiB, "rotate-mib", 512, "MiB a timed pass touches at least: in and out buffers rotated over up to 64 copies (past the L2)")
	cmd.Flags().StringVar(&pair, "pair", "", "also time each case after its producer (fed_by families: the quantizer, on activations of this dtype: f32, f16 or bf16), in one timed pass")
	cmd.Flags().StringVar(&timing, "timing", bench.TimingRotate, "rotate (device timestamps, buffers rotated past the L2) or ggml (Vulkan: the op repeated on the same buffers in one command buffer, host wall clock / repeats, as ggml's test-backend-ops perf mode)")
	cmd.Flags().StringVar(&tunePath, "tune-cache", "", "also record the tuned picks in this tuning cache file")
	return cmd
}

// loadCases reads the suite of families' kind (bench.KindOf: the launch
// contracts decide it) and expands it for the dtypes (rowsDtypes for rows
// x k families when dtypesGiven is false). Unknown families, families of
// two kinds and a dtype none of them has are input errors (exit 2).
func loadCases(families []string, shapes, quantShapes, dtypes string, dtypesGiven bool) ([]bench.Runnable, error) {
	if len(families) == 0 {
		return nil, &exitError{2, fmt.Errorf("--family: give one or more of %s", strings.Join(bench.Families(), ", "))}
	}
	kinds := map[bench.Kind][]string{}
	var kind bench.Kind
	for _, f := range families {
		k, err := bench.KindOf(f)
		if err != nil {
			return nil, &exitError{2, fmt.Errorf("--family: %w", err)}
		}
		kinds[k], kind = append(kinds[k], f), k
	}
	if len(kinds) > 1 {
		return nil, &exitError{2, fmt.Errorf("--family %s: %s run over %s shapes (--shapes), %s over %s shapes (--quant-shapes): give one kind per run",
			strings.Join(families, ","), strings.Join(kinds[bench.Models], ","), bench.Models, strings.Join(kinds[bench.Rows], ","), bench.Rows)}
	}
	if kind == bench.Rows && !dtypesGiven {
		dtypes = rowsDtypes
	}
	dts := splitList(dtypes)
	for _, d := range dts {
		var have []string
		for _, f := range families {
			have = append(have, bench.FamilyDtypes(f)...)
		}
		if !contains(have, d) {
			return nil, &exitError{2, fmt.Errorf("--dtypes: no variant of %s has dtype %q (they have %s)", strings.Join(families, ","), d, strings.Join(dedup(have), ", "))}
		}
	}
	var out []bench.Runnable
	if kind == bench.Rows {
		s, err := bench.LoadQuantSuite(quantShapes)
		if err != nil {
			return nil, &exitError{2, err}
		}
		for _, c := range s.Cases(families, dts) {
			out = append(out, c)
		}
		return out, nil
	}
	s, err := bench.LoadSuite(shapes)
	if err != nil {
		return nil, &exitError{2, err}
	}
	for _, c := range s.Cases(families, dts) {
		out = append(out, c)
	}
	return out, nil
}

// runBench measures every case on timer and prints a line for each: its
// record's, or why the family does not serve it (the case is recorded as
// skipped and the run goes on). write gets the results after each case, so
// a cut-short run keeps its numbers. With pair (an activation dtype), each
// case is also timed after its producers (bench.MeasurePair; the timer
// must be a bench.ChainTimer).
func runBench(w io.Writer, timer kruntime.Timer, dev kruntime.Device, cases []bench.Runnable, cache *kruntime.TuneCache,
	write func([]bench.Record, []bench.Skipped) error, pair string, rounds int) error {
	ct, _ := timer.(bench.ChainTimer)
	if pair != "" && ct == nil {
		return fmt.Errorf("--pair: this timer cannot time chains")
	}
	results, skipped := []bench.Record{}, []bench.Skipped{}
	for _, c := range cases {
		op := c.Op()
		m, err := bench.MeasureRounds(timer, dev, op, cache, rounds)
		if why, ok := bench.NotEligible(err); ok {
			fmt.Fprintln(w, why)
			skipped = append(skipped, bench.Skipped{Op: op.String(), Case: c, Reason: why})
		} else if err != nil {
			return fmt.Errorf("%s: %w", op, err)
		} else {
			r := c.Record(m)
			if pair != "" {
				p, err := bench.MeasurePair(ct, dev, m, pair)
				if err != nil {
					return fmt.Errorf("%s --pair %s: %w", op, pair, err)
				}
				r = bench.WithPair(r, p)
			}
			fmt.Fprintln(w, r.Line())
			results = append(results, r)
		}
		if err := write(results, skipped); err != nil {
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

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func dedup(list []string) []string {
	var out []string
	for _, x := range list {
		if !contains(out, x) {
			out = append(out, x)
		}
	}
	return out
}

// writeBench writes a run's JSON: the device, how it was timed (launch,
// timing, reps: the median's sample count; rounds: how many times each was
// timed), the results and, when there are any, the cases not timed
// (not_eligible).
func writeBench(path string, dev kruntime.Device, backend, launch, timing string, reps, rounds int, results []bench.Record, skipped []bench.Skipped, stats map[string]map[string]float64) error {
	doc := map[string]any{"device": dev.Name, "driver": dev.Driver, "backend": backend, "arch": dev.Arch, "launch": launch, "timing": timing, "reps": reps, "rounds": max(rounds, 1), "results": results}
	if len(skipped) > 0 {
		doc["not_eligible"] = skipped
	}
	if len(stats) > 0 {
		doc["pipeline_stats"] = stats
	}
	b, err := json.MarshalIndent(doc, "", " ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o644)
}

package main

import (
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/spf13/cobra"

	kruntime "github.com/kgen-dev/kgen/runtime"
	"github.com/kgen-dev/kgen/runtime/bench"
)

func newTuneCmd() *cobra.Command {
	var arch, families, shapes, quantShapes, dtypes, cachePath, launch string
	var modules []string
	var reps, rounds int
	cmd := &cobra.Command{
		Use:   "tune",
		Short: "Time the eligible variants on this GPU and record the fastest per op in the tuning cache",
		Long: `tune runs runtime.Tune for every op of a shape suite on the local GPU (CUDA
driver API): the heuristic pick and every eligible candidate with its pack and
tokens are timed, and the fastest is written to the tuning cache, keyed by
device, driver, op and the winner's artifact hash. runtime.Select (and so
gen explain --device, and engines using the runtime) then use the tuned pick;
stale or corrupt entries are ignored and rewritten. It reports how long
tuning took and how many calls it takes to pay for itself. Any family of the
table can be tuned (--family; the suite follows its launch contract, as in
gen bench); a case the family does not serve is reported and skipped.`,
		Example: `  gen tune --arch sm90 --module gemv_sm90.cubin --dtypes bf16
  gen tune --arch sm90 --module gemv_part1.cubin,gemv_part2.cubin,gemv_part3.cubin
  KGEN_TUNE_CACHE=/tmp/tune.json gen tune --shapes bench/decode-shapes.yaml
  gen tune --family quant_q8k,quant_q8_1 --module q8k.cubin,q81.cubin --dtypes f32,bf16`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if f := kruntime.Force(); f != nil {
				// A sweep narrowed by the override is never cached, so tune
				// would time everything and write nothing.
				return &exitError{2, fmt.Errorf("%s=%s is set: tune records the fastest of every candidate, and a narrowed sweep is never cached; unset it (gen bench honours it for A/B runs)", kruntime.ForceEnv, f)}
			}
			cases, err := loadCases(splitList(families), shapes, quantShapes, dtypes, true)
			if err != nil {
				return err
			}
			mode, err := bench.ParseLaunchMode(launch)
			if err != nil {
				return &exitError{2, fmt.Errorf("--launch: %w", err)}
			}
			ctx, mod, dev, err := openCUDA(arch, modules)
			if err != nil {
				return err
			}
			defer ctx.Close()
			r := &bench.Runner{Ctx: ctx, Mod: mod, Dev: dev, Reps: reps, Rng: rand.New(rand.NewPCG(3, 5)), Launch: mode}
			defer r.Close()
			cache, note := kruntime.LoadTuneCache(cachePath)
			if note != "" {
				fmt.Fprintln(cmd.ErrOrStderr(), "gen: "+note)
			}
			w := cmd.OutOrStdout()
			start := time.Now()
			var saved float64
			ops := 0
			for _, c := range cases {
				op := c.Op()
				trs, err := kruntime.TuneRounds(r, dev, []kruntime.Op{op}, cache, rounds)
				if why, ok := bench.NotEligible(err); ok {
					fmt.Fprintln(w, why)
					continue
				}
				if err != nil {
					return err
				}
				e := trs[0].Entry
				saved += e.HeurUS - e.US
				ops++
				fmt.Fprintf(w, "%-34s %-28s %8.1f us (heuristic %-28s %8.1f us) %d timed in %s\n", op, e.Variant, e.US, e.Heuristic, e.HeurUS, e.Candidates, trs[0].Elapsed.Round(time.Millisecond))
			}
			if err := cache.Save(cachePath); err != nil {
				return err
			}
			el := time.Since(start)
			fmt.Fprintf(w, "tuned %d ops on %s in %s; wrote %s\n", ops, dev.Name, el.Round(time.Millisecond), cachePath)
			if saved > 0 {
				fmt.Fprintf(w, "the tuned picks save %.1f us per pass over these ops: tuning pays for itself after %.0f passes (decode steps)\n", saved, el.Seconds()*1e6/saved)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&arch, "arch", "sm90", "HIP-source arch of the module")
	cmd.Flags().StringSliceVar(&modules, "module", nil, "compiled modules of generated/hip/<family>_<arch>.hip files or parts of them; repeatable, comma-separated (kernels are looked up across all)")
	cmd.Flags().StringVar(&families, "family", "gemv", "comma-separated families of the table, of one suite kind")
	cmd.Flags().StringVar(&shapes, "shapes", "bench/decode-shapes.yaml", "suite of families whose ops read n (models x layers x token counts)")
	cmd.Flags().StringVar(&quantShapes, "quant-shapes", "bench/quant-shapes.yaml", "rows x k cases of families whose ops do not read n (the quantizers)")
	cmd.Flags().StringVar(&dtypes, "dtypes", "bf16", "comma-separated dtypes")
	cmd.Flags().StringVar(&cachePath, "cache", kruntime.DefaultTuneCachePath(), "tuning cache file")
	cmd.Flags().IntVar(&reps, "reps", 20, "timed repetitions per variant (median)")
	cmd.Flags().IntVar(&rounds, "rounds", kruntime.DefaultTuneRounds, "times the candidate list is timed, every other round in reverse order; each variant keeps its fastest round's median")
	cmd.Flags().StringVar(&launch, "launch", "graph", "graph (timed launches captured into a CUDA graph, as engines run decode) or eager")
	return cmd
}

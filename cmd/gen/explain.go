package main

import (
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/kgen-dev/kgen/generated"
	kruntime "github.com/kgen-dev/kgen/runtime"
	"github.com/kgen-dev/kgen/runtime/bench"
)

// checkExplainOp refuses flags no op can have, naming what is allowed: a
// family or dtype the generated table does not have (a typo would otherwise
// read as "no variant serves"), and an empty or negative shape (which would
// read as an op for another path). Align is checked by Select (Op.Validate).
func checkExplainOp(op kruntime.Op) error {
	dtypes := map[string]bool{}
	for i := range generated.Variants {
		if v := &generated.Variants[i]; v.Family == op.Family {
			dtypes[v.Param("dtype")] = true
		}
	}
	if len(dtypes) == 0 {
		var fams []string
		for _, f := range generated.Families {
			fams = append(fams, f.Name)
		}
		return fmt.Errorf("--family %q: unknown family; allowed: %s", op.Family, strings.Join(fams, ", "))
	}
	if !dtypes[op.Dtype] {
		var ds []string
		for d := range dtypes {
			ds = append(ds, d)
		}
		sort.Strings(ds)
		return fmt.Errorf("--dtype %q: family %s has no such dtype; allowed: %s", op.Dtype, op.Family, strings.Join(ds, ", "))
	}
	for _, f := range []struct {
		name string
		v    int
	}{{"m", op.M}, {"n", op.N}, {"k", op.K}} {
		if f.v < 1 {
			return fmt.Errorf("--%s %d: want a positive integer", f.name, f.v)
		}
	}
	return nil
}

func newExplainCmd() *cobra.Command {
	var arch, act string
	var useDevice bool
	var op kruntime.Op
	cmd := &cobra.Command{
		Use:   "explain",
		Short: "Show which variant the runtime picks for an op, and why every other lost",
		Long: `explain runs the runtime's selection for one op on a HIP arch (from its spec
file) or on the local Vulkan device (--device), prints the chosen variant
with its reasons, then every other candidate with the rule it failed or the
preference key it lost on. Selection rules live in templates/kernels.yaml
and templates/archs/*.yaml; KGEN_FORCE (FAMILY:name=value,... or a variant
name) narrows the candidates, and a value naming no family or variant of
the table is exit 2. With --act, a family whose input another family
produces (fed_by in kernels.yaml: mmvq's Q8_1 activations) is explained as
its whole decode step: the producer's pick for the act-dtype values, then
the family's, each with its launch (runtime.SelectChain). A Vulkan pick's
launch is followed by a "vktime:" line, the cmd/vktime flags that run
that one launch alone (to time it, or with -count to count the SPIR-V
instructions it executes).`,
		Example: `  gen explain --arch gfx1200 --family gemv --dtype bf16 --m 1 --n 151936 --k 1024
  gen explain --device --family gemv --dtype f16 --m 4 --n 4096 --k 4096
  KGEN_FORCE=gemv:pack=4,rows=1 gen explain --arch gfx942 --dtype bf16 --m 1 --n 4096 --k 4096
  KGEN_FORCE=gemv_bf16_p4_r2_t1_wg128 gen explain --arch gfx1200 --dtype bf16
  gen explain --arch sm90 --family mmvq --dtype q4_k --act f32 --m 1 --n 4096 --k 14336
  KGEN_FORCE=quant_q8_1_f16_lane gen explain --arch nvidia --family quant_q8_1 --dtype f16 --m 4096 --k 4096`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkExplainOp(op); err != nil {
				return &exitError{2, err}
			}
			if err := kruntime.ForceError(); err != nil {
				return &exitError{2, err}
			}
			var dev kruntime.Device
			var err error
			switch {
			case useDevice && arch != "":
				return &exitError{2, fmt.Errorf("give --arch or --device, not both")}
			case useDevice:
				d, closeDev, err := openVulkan(0)
				if err != nil {
					return err
				}
				defer closeDev()
				if dev, err = kruntime.VulkanDevice(d.Info()); err != nil {
					return err
				}
			case arch != "":
				if dev, err = kruntime.ArchDevice(arch); err != nil {
					return &exitError{2, err}
				}
			default:
				return &exitError{2, fmt.Errorf("give --arch ARCH (e.g. gfx1200) or --device")}
			}
			w := cmd.OutOrStdout()
			fmt.Fprintf(w, "op: %s on %s/%s (%s; wave %d, %d compute units)\n", op, dev.Backend, dev.Arch, dev.Name, dev.Wave, dev.ComputeUnits)
			if act != "" {
				return explainChain(w, dev, op, act, useDevice)
			}
			ch, err := kruntime.Select(dev, op)
			var ne *kruntime.NotEligibleError
			if errors.As(err, &ne) {
				fmt.Fprintln(w, ne.Error())
				return nil
			}
			if errors.Is(err, kruntime.ErrForce) || errors.Is(err, kruntime.ErrInvalidOp) {
				return &exitError{2, err}
			}
			if err != nil {
				return err
			}
			printChoice(w, dev, op, ch, useDevice)
			return nil
		},
	}
	cmd.Flags().StringVar(&arch, "arch", "", "HIP arch or Vulkan device class from templates/archs")
	cmd.Flags().BoolVar(&useDevice, "device", false, "use the local Vulkan device")
	cmd.Flags().StringVar(&op.Family, "family", "gemv", "kernel family")
	cmd.Flags().StringVar(&op.Dtype, "dtype", "bf16", "dtype (f32, f16, bf16, fp8e4m3_bf16, fp8e4m3_f16)")
	cmd.Flags().IntVar(&op.M, "m", 1, "tokens in flight (rows, for the quantizers); positive")
	cmd.Flags().IntVar(&op.N, "n", 4096, "output rows (weight rows); positive")
	cmd.Flags().IntVar(&op.K, "k", 4096, "reduction length; positive")
	cmd.Flags().StringVar(&act, "act", "", "explain the decode step: the dtype (f32, f16, bf16) of the activations a fed_by family's producer converts, then the family's op")
	cmd.Flags().IntVar(&op.Align, "align", 0, "alignment in elements of the W/X buffer offsets (0: aligned; negative: invalid, exit 2)")
	return cmd
}

// vktimeArgs are cmd/vktime's flags for this one launch (from the module
// root): to time it alone, or count what it executes (-count), outside the
// table. In buffers hold what gen bench fills them with: activation values
// for act elements, random finite bytes for the rest.
func vktimeArgs(l *kruntime.Launch) string {
	var spec, push, bufs []string
	for _, sc := range l.SpecConsts() {
		spec = append(spec, fmt.Sprintf("%d=%d", sc.ID, sc.Value))
	}
	for _, a := range l.Args {
		push = append(push, strconv.FormatUint(uint64(a), 10))
	}
	for _, b := range l.Buffers {
		fill := ""
		switch f := bench.FillOf(b, l.Op.Dtype); f {
		case "":
		case "act f32", "act f16", "act bf16":
			fill = ":" + f[len("act "):]
		default: // other inputs, and activations of a block format: random bytes, as gen bench fills them
			fill = ":bytes"
		}
		// A buffer the launch does not touch (size 0: no split-K
		// scratch) is still bound: 16 bytes, as gen bench binds one.
		bufs = append(bufs, fmt.Sprintf("%d%s", max(b.Size, 16), fill))
	}
	s := fmt.Sprintf("-spv generated/%s", l.Variant.Artifact.Path)
	if len(spec) > 0 {
		s += " -spec " + strings.Join(spec, ",")
	}
	if len(push) > 0 {
		s += " -push " + strings.Join(push, ",")
	}
	return s + fmt.Sprintf(" -buf %s -groups %d,%d,%d", strings.Join(bufs, ","), l.Groups[0], l.Groups[1], l.Groups[2])
}

// printChoice prints a selection: the chosen variant, its launch, whether
// a tuned entry chose it, its reasons, then every other candidate with the
// rule it failed or the key it lost on.
func printChoice(w io.Writer, dev kruntime.Device, op kruntime.Op, ch *kruntime.Choice, useDevice bool) {
	fmt.Fprintf(w, "chosen: %s (%s)\n", ch.Variant.Name, ch.Variant.ParamString())
	if l, err := kruntime.Plan(ch.Variant, dev, op); err == nil {
		fmt.Fprintf(w, "  launch: %s\n", l)
		if ch.Variant.Backend == "vulkan" {
			fmt.Fprintf(w, "  vktime: %s\n", vktimeArgs(l))
		}
	} else {
		fmt.Fprintf(w, "  launch: %v\n", err)
	}
	if ch.Tuned {
		fmt.Fprintf(w, "  tuned pick: %s; heuristic pick: %s\n", ch.Variant.Name, ch.Heuristic.Name)
	} else if es := kruntime.ActiveTuneCache().ForArch(dev.Arch, op); len(es) > 0 && !useDevice {
		fmt.Fprintf(w, "  heuristic pick; tuned picks recorded for %s devices in %s:\n", dev.Arch, kruntime.DefaultTuneCachePath())
		for _, e := range es {
			fmt.Fprintf(w, "    %s (%s): %s %.1f us, heuristic %s %.1f us\n", e.Device, e.Driver, e.Variant, e.US, e.Heuristic, e.HeurUS)
		}
	} else {
		fmt.Fprintf(w, "  heuristic pick (no tuning entry for this device and op in %s)\n", kruntime.DefaultTuneCachePath())
	}
	for _, r := range ch.Reasons {
		fmt.Fprintf(w, "  - %s\n", r)
	}
	// Predicted-time keys (ns) are printed for every eligible candidate.
	timeKeys := kruntime.TimeKeys(dev.Arch, op.Family)
	predicted := func(c kruntime.Candidate) string {
		if c.Excluded != "" || len(timeKeys) == 0 {
			return ""
		}
		var parts []string
		for _, i := range timeKeys {
			if i < len(c.Keys) {
				parts = append(parts, strconv.FormatInt(c.Keys[i], 10))
			}
		}
		return " [model: predicted " + strings.Join(parts, ", ") + " ns]"
	}
	for _, c := range ch.Candidates {
		if c.Variant == ch.Variant && len(timeKeys) > 0 {
			fmt.Fprintf(w, "  model:%s\n", strings.TrimPrefix(strings.TrimSuffix(predicted(c), "]"), " [model:"))
		}
	}
	eligible, excluded := 0, 0
	for _, c := range ch.Candidates {
		if c.Excluded == "" {
			eligible++
		} else {
			excluded++
		}
	}
	fmt.Fprintf(w, "other candidates: %d eligible, %d excluded\n", eligible-1, excluded)
	for _, c := range ch.Candidates {
		if c.Variant == ch.Variant {
			continue
		}
		if c.Variant == ch.Heuristic {
			fmt.Fprintf(w, "  %s: the heuristic pick, replaced by the tuned one%s\n", c.Variant.Name, predicted(c))
			continue
		}
		fmt.Fprintf(w, "  %s: %s%s\n", c.Variant.Name, ch.LostBy(c), predicted(c))
	}
}

package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/kgen-dev/kgen/generated"
	"github.com/kgen-dev/kgen/runtime/driver"
	"github.com/kgen-dev/kgen/runtime/table"
	"github.com/kgen-dev/kgen/runtime/verify"
)

func newVerifyCmd() *cobra.Command {
	var f verify.Filter
	var seed uint64
	var device int
	var modules []string
	var statsPath string
	cmd := &cobra.Command{
		Use:   "verify",
		Short: "Run every variant on the local device against the CPU reference",
		Long: `verify runs each selected variant of the committed table on the present
device over shapes with K and N tails, every token count up to the variant's,
and its smallest and largest shapes, on fresh random inputs, with outputs
poisoned (NaN) before each run. A variant passes when the relative L2 error
against the float64 reference is under 1e-5 (f32) or 1e-3 (f16, bf16, fp8).

The quantizers (quant_q8k, quant_q8_1) must be byte-identical to runtime/ref:
random and crafted blocks (+a/-a ties in both orders, zero blocks, a single
nonzero, .5 boundaries after scaling, subnormals, huge values, Inf and NaN),
rows 1, 7, 64 and 4096, outputs poisoned with 0xFF bytes before each run.

Table rows of several Vulkan device classes that share a blob,
specialization constants and parameters are one program on the device: it
runs once, and the summary counts every row it stands for. Every SPIR-V
blob's SHA-256 is checked against the table before it reaches the driver.
Exit 1 when any variant fails, or when every variant selected was skipped
(nothing verified); exit 2 when the filter selects none.

--backend cuda|hip runs the HIP sources of one --arch through the driver API
from compiled modules: --module is repeatable and comma-separated (a large
source split into parts compiled separately, and one file per family), each
kernel is looked up across all of them (a kernel in two modules is an
error). Without --family and --variant, every family with a kernel in the
modules is verified, all of its variants (a kernel missing from every
module fails).

--stats FILE (Vulkan) also writes, as JSON by backend/arch/name, what the
driver compiled each verified program into (VK_KHR_pipeline_executable_properties:
NVIDIA's register count and binary size among others); a device whose
driver reports nothing (lavapipe 22.3) is exit 2 before anything runs.`,
		Example: `  VK_DRIVER_FILES=/usr/share/vulkan/icd.d/lvp_icd.x86_64.json gen verify
  gen verify --family gemv --variant gemv_bf16_p8_r1_t1_wg256
  gen verify --family quant_q8k
  gen verify --seed 42    # reproduce a run
  gen verify --family mmvq --arch nvidia --stats mmvq-registers.json
  nvcc -x cu -std=c++17 -arch=sm_90 -O3 -cubin -o q8k.cubin generated/hip/quant_q8k_sm90.hip
  nvcc -x cu -std=c++17 -arch=sm_90 -O3 -cubin -o q81.cubin generated/hip/quant_q8_1_sm90.hip
  gen verify --backend cuda --arch sm90 --module gemv_part1.cubin,gemv_part2.cubin --module q8k.cubin,q81.cubin`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			switch f.Backend {
			case "", "vulkan":
				f.Backend = "vulkan"
			case "cuda", "hip":
				return verifyDriver(cmd, f, seed, device, modules)
			default:
				return &exitError{2, fmt.Errorf("--backend %q; allowed: vulkan, cuda, hip", f.Backend)}
			}
			d, closeDev, err := openVulkan(device)
			if err != nil {
				return err
			}
			defer closeDev()
			r, err := verify.NewVulkanRunner(d)
			if err != nil {
				return err
			}
			defer r.Close()
			if statsPath != "" {
				if err := d.CaptureStatistics(true); err != nil {
					return &exitError{2, fmt.Errorf("--stats: %w", err)}
				}
				r.Stats = map[string]map[string]float64{}
			}
			err = report(cmd, r, generated.Variants, f, seed)
			if statsPath != "" && len(r.Stats) > 0 {
				b, jerr := json.MarshalIndent(r.Stats, "", " ")
				if jerr == nil {
					jerr = os.WriteFile(statsPath, b, 0o644)
				}
				if jerr != nil {
					return jerr
				}
				fmt.Fprintf(cmd.ErrOrStderr(), "verify: the driver's statistics of %d programs in %s\n", len(r.Stats), statsPath)
			}
			return err
		},
	}
	cmd.Flags().StringVar(&f.Backend, "backend", "vulkan", "backend to verify on")
	cmd.Flags().StringVar(&f.Family, "family", "", "only this family")
	cmd.Flags().StringVar(&f.Variant, "variant", "", "only this variant (name or backend/arch/name)")
	cmd.Flags().StringVar(&f.Arch, "arch", "", "only table rows of this device class")
	cmd.Flags().Uint64Var(&seed, "seed", 0, "random seed (default: from the clock; printed)")
	cmd.Flags().IntVar(&device, "device", 0, "device index")
	cmd.Flags().StringVar(&statsPath, "stats", "", "vulkan: also write the driver's pipeline statistics of every verified program (JSON) to this file")
	cmd.Flags().StringSliceVar(&modules, "module", nil, "cuda/hip: compiled modules (cubin, PTX or code object) of generated/hip/<family>_<arch>.hip files or parts of them; repeatable, comma-separated")
	return cmd
}

// report runs the verification of variants on r and prints failures and
// the summary.
func report(cmd *cobra.Command, r verify.Runner, variants []table.Variant, f verify.Filter, seed uint64) error {
	out := cmd.OutOrStdout()
	fmt.Fprintf(cmd.ErrOrStderr(), "verify: device %s\n", r.Name())
	rep, err := verify.Run(r, variants, verify.Options{Filter: f, Seed: seed, Log: out, Progress: cmd.ErrOrStderr()})
	if err != nil {
		return &exitError{2, err}
	}
	for _, s := range rep.Skipped {
		fmt.Fprintln(out, "skipped "+s)
	}
	fmt.Fprintf(out, "%d shape runs, seed %d, %s\n", rep.Shapes, rep.Seed, rep.Elapsed.Round(1e6))
	fmt.Fprintln(out, rep.Summary())
	if rep.Failed > 0 {
		return &exitError{1, errSilent}
	}
	if rep.Verified == 0 {
		// Asked to verify something and verified nothing: not a pass.
		return &exitError{1, fmt.Errorf("verified nothing: all %d variants the filter selects were skipped on %s (reasons above)", len(rep.Skipped), r.Name())}
	}
	return nil
}

// verifyDriver verifies HIP-source variants of one arch through the CUDA or
// HIP driver API, from modules compiled from generated/hip/<family>_<arch>.hip
// files (or parts of them). Without --family and --variant it verifies every
// family with a kernel in the modules.
func verifyDriver(cmd *cobra.Command, f verify.Filter, seed uint64, device int, modules []string) error {
	if f.Arch == "" || len(modules) == 0 {
		return &exitError{2, fmt.Errorf("--backend %s needs --arch (e.g. sm90) and --module (e.g. nvcc -x cu -arch=sm_90 -cubin generated/hip/gemv_sm90.hip; repeatable, comma-separated)", f.Backend)}
	}
	images, err := readModules("--module", modules)
	if err != nil {
		return err
	}
	ctx, err := driver.Open(driver.Backend(f.Backend), device)
	if err != nil {
		if errors.Is(err, driver.ErrNoDriver) {
			return &exitError{3, err}
		}
		return err
	}
	defer ctx.Close()
	r, err := verify.NewDriverRunner(ctx, f.Arch, images...)
	if err != nil {
		return err
	}
	defer r.Close()
	f.Backend = "hip" // the table's backend for HIP-source variants
	variants := generated.Variants
	if f.Family == "" && f.Variant == "" {
		var families []string
		if variants, families, err = r.Present(generated.Variants); err != nil {
			return err
		}
		if len(families) == 0 {
			return &exitError{2, fmt.Errorf("no kernel of hip/%s is in %s: build the modules from generated/hip/<family>_%s.hip", f.Arch, strings.Join(modules, ", "), f.Arch)}
		}
		fmt.Fprintf(cmd.ErrOrStderr(), "verify: families in the modules: %s\n", strings.Join(families, ", "))
	}
	return report(cmd, r, variants, f, seed)
}

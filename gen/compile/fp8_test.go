package compile

import (
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strings"
	"testing"

	"github.com/kgen-dev/kgen/gen/spec"
)

// e4m3HW is the fp8 e4m3 path kgen_hip.h takes on each AMD arch
// (KG_E4M3_HW): true where the hardware conversion decodes OCP E4M3FN, the
// format of the fp8 dtypes. gfx12 (gfx1200) has v_cvt_pk_f32_fp8 in that
// format. gfx942 has the same instruction but decodes the FNUZ variant
// (bias 8, 0x80 NaN, no negative zero; HIP's amd_hip_fp8.h makes gfx940-942
// FNUZ-only), so it keeps the software decode; gfx90a and gfx1100 have no
// fp8 conversions.
func e4m3HW(arch string) bool { return strings.HasPrefix(arch, "gfx12") }

// fp8ConvRe matches any fp8/bf8 conversion instruction.
var fp8ConvRe = regexp.MustCompile(`^v_cvt_(pk_)?(f32|f16|fp8|bf8|sr)_.*(fp8|bf8)`)

// TestHIPE4M3Decode checks, for every amdgcn arch of the spec, which e4m3
// decode the portability header compiles to:
//   - a tiny kernel decoding 8 codes through kg_unpack (the CUDA-core GEMV
//     path) uses v_cvt_pk_f32_fp8 four times on gfx12 and no fp8
//     conversion anywhere else;
//   - the builtin itself exists exactly where clang-19 says the hardware
//     has it (gfx942 and gfx12: fp8-conversion-insts), so gfx942's software
//     path is the header's choice (FNUZ), not a missing instruction;
//   - every fp8 kernel of generated/hip/gemv_<arch>.hip follows its arch
//     (the code object is TestHIPCompile's, from the compile cache when
//     that test ran first).
//
// Exactness on all 256 codes is checked on NVIDIA hardware by
// bench/fp8codes.cu; the AMD paths are checked here for the instruction
// only (no AMD GPU in CI).
func TestHIPE4M3Decode(t *testing.T) {
	ctx := t.Context()
	root := hipModuleRoot(t)
	clang, err := FindClang(ctx)
	if err != nil {
		t.Fatalf("needs clang++-19: %v", err)
	}
	objdump := find(os.Getenv("KGEN_LLVM_OBJDUMP"), "llvm-objdump-19")
	if objdump == "" {
		t.Fatalf("%v", &ToolError{Tool: "llvm-objdump-19", Install: InstallClang})
	}
	header, err := os.ReadFile(filepath.Join(root, "generated", "hip", "kgen_hip.h"))
	if err != nil {
		t.Fatal(err)
	}
	sp, err := spec.Load(os.DirFS(filepath.Join(root, "templates")), "templates")
	if err != nil {
		t.Fatalf("loading the spec: %v", err)
	}
	var archs []string
	for _, a := range sp.Archs {
		if a.Backend == spec.BackendHIP && a.Target == "amdgcn" {
			archs = append(archs, a.Name)
		}
	}
	sort.Strings(archs)
	if len(archs) == 0 {
		t.Fatal("no amdgcn arch in the spec")
	}
	if testing.Short() {
		archs = []string{"gfx1200", "gfx942"}
	}
	c := &Compiler{Tools: &Toolchain{Clang: clang}, Cache: &Cache{Dir: DefaultCacheDir()}, Jobs: runtime.GOMAXPROCS(0)}

	const tiny = `#include "kgen_hip.h"
KG_KERNEL(64) kg_e4m3_probe(const uint32_t* in, float* out) {
  const int i = kg_tid();
  const uint32_t w[4] = {in[2 * i], in[2 * i + 1], 0u, 0u};
  float f[8];
  kg_unpack<KG_E4M3, 8>(w, f);
  for (int j = 0; j < 8; ++j) out[8 * i + j] = f[j];
}
`
	const builtin = `#include "kgen_hip.h"
KG_KERNEL(64) kg_fp8_builtin(const uint32_t* in, float* out) {
  typedef float f2 __attribute__((ext_vector_type(2)));
  const f2 v = __builtin_amdgcn_cvt_pk_f32_fp8((int)in[kg_tid()], false);
  out[2 * kg_tid()] = v.x;
  out[2 * kg_tid() + 1] = v.y;
}
`
	objdumpOf := func(t *testing.T, arch string, obj []byte) map[string][]string {
		t.Helper()
		co := filepath.Join(t.TempDir(), arch+".co")
		if err := os.WriteFile(co, obj, 0o644); err != nil {
			t.Fatal(err)
		}
		dis, err := run(ctx, "", nil, objdump, "-d", "--mcpu="+arch, co)
		if err != nil {
			t.Fatalf("%s: llvm-objdump -d: %v", arch, err)
		}
		return hipDisasm(dis)
	}
	count := func(body []string, re *regexp.Regexp) (n int) {
		for _, m := range body {
			if re.MatchString(m) {
				n++
			}
		}
		return n
	}
	pk := regexp.MustCompile(`^v_cvt_pk_f32_fp8`)
	for _, arch := range archs {
		t.Run(arch, func(t *testing.T) {
			res, err := c.Run(ctx, []*Job{{Name: "e4m3_probe.hip", Source: []byte(tiny), Kind: "hip-object", Arch: arch, Header: header}})
			if err != nil {
				t.Fatalf("the e4m3 probe does not build: %v", err)
			}
			body := objdumpOf(t, arch, res[0].Output)["kg_e4m3_probe"]
			if len(body) == 0 {
				t.Fatalf("no kg_e4m3_probe in the disassembly")
			}
			n, other := count(body, pk), count(body, fp8ConvRe)
			if e4m3HW(arch) {
				if n != 4 || other != 4 {
					t.Errorf("8 codes through kg_unpack: %d v_cvt_pk_f32_fp8 (%d fp8 conversions), want 4 (two codes each)", n, other)
				}
			} else if other != 0 {
				t.Errorf("8 codes through kg_unpack: %d fp8 conversion instructions, want none (the software decode)", other)
			}
			t.Logf("kg_unpack<KG_E4M3, 8>: %d v_cvt_pk_f32_fp8, %d instructions", n, len(body))

			// The builtin: present on gfx942 and gfx12, absent on the others.
			_, berr := c.Run(ctx, []*Job{{Name: "fp8_builtin.hip", Source: []byte(builtin), Kind: "hip-object", Arch: arch, Header: header}})
			has := strings.HasPrefix(arch, "gfx94") || strings.HasPrefix(arch, "gfx12")
			switch {
			case has && berr != nil:
				t.Errorf("__builtin_amdgcn_cvt_pk_f32_fp8 does not build for %s: %v", arch, berr)
			case !has && berr == nil:
				t.Errorf("__builtin_amdgcn_cvt_pk_f32_fp8 builds for %s: update e4m3HW and this test", arch)
			case !has && !strings.Contains(berr.Error(), "fp8-conversion-insts"):
				t.Errorf("__builtin_amdgcn_cvt_pk_f32_fp8 on %s fails for another reason than the target feature: %v", arch, berr)
			}

			// Every fp8 GEMV kernel of the generated source.
			file := filepath.Join(root, "generated", "hip", "gemv_"+arch+".hip")
			src, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, m := range regexp.MustCompile(`(?m)^KG_KERNEL\(\d+\) (gemv_fp8e4m3_\w+)\(`).FindAllSubmatch(src, -1) {
				names = append(names, string(m[1]))
			}
			if len(names) == 0 {
				t.Fatalf("%s has no fp8 kernel", file)
			}
			gres, err := c.Run(ctx, []*Job{{Name: file, Source: src, Kind: "hip-object", Arch: arch, Header: header}})
			if err != nil {
				t.Fatal(err)
			}
			secs := objdumpOf(t, arch, gres[0].Output)
			var wrong []string
			for _, k := range names {
				body, ok := secs[k]
				if !ok {
					wrong = append(wrong, k+" (no ISA)")
					continue
				}
				n, other := count(body, pk), count(body, fp8ConvRe)
				if e4m3HW(arch) != (n > 0) || other != n {
					wrong = append(wrong, k)
				}
			}
			if len(wrong) > 0 {
				t.Errorf("%d of %d fp8 kernels do not decode as %s should (hardware %v): %s", len(wrong), len(names), arch, e4m3HW(arch), hipFirst(wrong, 8))
			}
			t.Logf("%d fp8 GEMV kernels: hardware decode (v_cvt_pk_f32_fp8) %v in every one", len(names), e4m3HW(arch))
		})
	}
}

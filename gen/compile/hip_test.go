package compile

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kgen-dev/kgen/gen/spec"
)

// TestHIPCompile is the AMD compile check of the generated HIP sources
// (generated/hip/<family>_<arch>.hip, every family). For every arch whose
// spec target is amdgcn (HIP sources for nvcc, target cuda, are left to the
// CUDA check) it
//   - builds a code object with clang++-19 and the bare header (HIPObjectFlags),
//   - checks the source against the real HIP headers (HIPSyntaxFlags),
//   - compiles it with a real hipcc when one is on PATH, for the archs it supports,
//   - checks that every KG_KERNEL is a kernel symbol of the code object,
//   - reads the ISA: GEMV variants with 16-byte packs use 16-byte global
//     loads and pack-1 bf16 variants 2-byte loads (so the check can tell the
//     two apart); the quantizers (byte-identical to runtime/ref) contain no
//     fused or unfused float multiply-add, only separately rounded
//     multiplies and adds, except the Newton steps inside full-precision
//     f32 divisions (hipDivisions), which every f32 division must be;
//     every quantized-weight GEMV (mmvq) kernel uses the 4 x int8 dot
//     instruction its arch's int_dot names (sdot4: v_dot4(c)_i32_i8,
//     sudot4: v_dot4_i32_iu8) and its q4_k kernels load their weights 16
//     bytes at a time.
//
// Compiles are cached (KGEN_CACHE, else the user cache dir's kgen folder), so
// a rerun on unchanged sources only reads the ISA. Cold, one code object takes
// ~90 s of one core; the archs run as parallel subtests. With -short only
// gfx1200 is checked.
func TestHIPCompile(t *testing.T) {
	start := time.Now()
	ctx := t.Context()
	root := hipModuleRoot(t)
	files, err := filepath.Glob(filepath.Join(root, "generated", "hip", "*_*.hip"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatalf("no generated/hip/<family>_<arch>.hip under %s: run `gen` first", root)
	}
	sort.Strings(files)
	files = hipAMDFiles(t, root, files)

	// Tools: all required (CI installs them); only hipcc is optional.
	clang, err := FindClang(ctx)
	if err != nil {
		t.Fatalf("the AMD compile check needs clang++-19: %v", err)
	}
	include := HIPHeaders()
	if include == "" {
		t.Fatalf("HIP headers (hip/hip_runtime.h) not found in $KGEN_HIP_INCLUDE, /opt/rocm/include or /usr/include; install them: %s", InstallClang)
	}
	objdump := find(os.Getenv("KGEN_LLVM_OBJDUMP"), "llvm-objdump-19")
	readelf := find(os.Getenv("KGEN_LLVM_READELF"), "llvm-readelf-19")
	if objdump == "" || readelf == "" {
		t.Fatalf("%v", &ToolError{Tool: "llvm-objdump-19/llvm-readelf-19", Install: InstallClang})
	}
	hipcc := FindHIPCC(ctx)
	t.Logf("clang: %s (%s); HIP headers: %s", clang.Path, clang.Version, include)
	if hipcc == nil {
		t.Logf("hipcc not on PATH: skipping the optional hipcc compile")
	} else {
		t.Logf("hipcc: %s (%s)", hipcc.Path, hipcc.Version)
	}

	header, err := os.ReadFile(filepath.Join(root, "generated", "hip", "kgen_hip.h"))
	if err != nil {
		t.Fatal(err)
	}
	cache := &Cache{Dir: DefaultCacheDir()}
	c := &Compiler{
		Tools: &Toolchain{Clang: clang, HIPInclude: include},
		Cache: cache,
		Jobs:  runtime.GOMAXPROCS(0),
	}
	t.Logf("cache: %s", cache.Dir)

	if testing.Short() {
		var keep []string
		for _, f := range files {
			if hipArchOf(f) == "gfx1200" {
				keep = append(keep, f)
			}
		}
		if len(keep) == 0 {
			t.Fatalf("-short checks gfx1200, but there is no generated/hip/<family>_gfx1200.hip")
		}
		t.Logf("-short: checking gfx1200 only (%d of %d sources)", len(keep), len(files))
		files = keep
	}

	var mu sync.Mutex
	var summary []string
	t.Run("arch", func(t *testing.T) {
		for _, file := range files {
			arch, fam := hipArchOf(file), hipFamilyOf(file)
			t.Run(arch+"/"+fam, func(t *testing.T) {
				t.Parallel()
				s := checkHIPArch(t.Context(), t, c, hipcc, objdump, readelf, file, arch, header)
				mu.Lock()
				summary = append(summary, s)
				mu.Unlock()
			})
		}
	})
	sort.Strings(summary)
	for _, s := range summary {
		t.Log(s)
	}
	t.Logf("%d source(s) in %s; cache hits %d, misses %d", len(files), time.Since(start).Round(time.Millisecond), cache.Hits, cache.Misses)
}

// checkHIPArch runs every check for one arch's source and returns a summary line.
func checkHIPArch(ctx context.Context, t *testing.T, c *Compiler, hipcc *Tool, objdump, readelf, file, arch string, header []byte) string {
	t.Helper()
	start := time.Now()
	src, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	fam := hipFamilyOf(file)
	kernels, lines, err := hipKernels(src, fam)
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	if len(kernels) == 0 {
		t.Fatalf("%s: no KG_KERNEL( lines", file)
	}
	names := make([]string, len(kernels))
	for i, k := range kernels {
		names[i] = k.name
	}
	obj := &Job{Name: file, Source: src, Kind: "hip-object", Arch: arch, Header: header, Variants: names, Lines: lines}
	syn := &Job{Name: file, Source: src, Kind: "hip-syntax", Arch: arch, Header: header, Variants: names, Lines: lines}
	res, err := c.Run(ctx, []*Job{obj, syn})
	if err != nil {
		t.Fatalf("%s: %v", arch, err)
	}
	if len(res[0].Output) == 0 {
		t.Fatalf("%s: empty code object", arch)
	}
	compiled := time.Since(start).Round(time.Millisecond)
	cached := "cold"
	if res[0].Cached && res[1].Cached {
		cached = "cached"
	}

	co := filepath.Join(t.TempDir(), arch+".co")
	if err := os.WriteFile(co, res[0].Output, 0o644); err != nil {
		t.Fatal(err)
	}

	// The code object is an amdgcn ELF for this arch.
	hdr, err := run(ctx, "", nil, readelf, "-h", co)
	if err != nil {
		t.Fatalf("%s: llvm-readelf -h: %v", arch, err)
	}
	if !hipELFIsArch(hdr, arch) {
		t.Errorf("%s: the code object is not an amdgcn ELF for %s:\n%s", arch, arch, hdr)
	}

	// Every kernel is a FUNC symbol with its kernel descriptor (<name>.kd).
	symOut, err := run(ctx, "", nil, readelf, "-s", "--wide", co)
	if err != nil {
		t.Fatalf("%s: llvm-readelf -s: %v", arch, err)
	}
	funcs, objects := hipSymbols(symOut)
	var missing []string
	for _, k := range kernels {
		if !funcs[k.name] || !objects[k.name+".kd"] {
			missing = append(missing, k.name)
		}
	}
	if len(missing) > 0 {
		t.Errorf("%s: %d of %d kernels have no symbol (or no .kd descriptor) in the code object: %s", arch, len(missing), len(kernels), hipFirst(missing, 10))
	}

	// The ISA, per kernel.
	dis, err := run(ctx, "", nil, objdump, "-d", "--mcpu="+arch, co)
	if err != nil {
		t.Fatalf("%s: llvm-objdump -d: %v", arch, err)
	}
	sections := hipDisasm(dis)
	hipccNote := "hipcc: absent"
	if hipcc != nil {
		hipccNote = checkHIPCC(ctx, t, c.Cache, hipcc, file, arch, src, header)
	}
	if fam == "mmvq" {
		return checkHIPMMVQ(t, arch, kernels, sections, len(missing), hipccNote, compiled, cached, start)
	}
	if fam != "gemv" {
		irDivs := hipIRDivisions(ctx, t, c.Tools.Clang.Path, file, arch, src, header)
		return checkHIPNoFMA(t, arch, fam, kernels, sections, irDivs, len(missing), hipccNote, compiled, cached, start)
	}
	wide, short := hipLoadPatterns(arch)
	var nWide, nWideX, nNarrow int
	var noWide, noNarrow, wideInNarrow, noISA []string
	for _, k := range kernels {
		body, ok := sections[k.name]
		if !ok {
			noISA = append(noISA, k.name)
			continue
		}
		switch {
		case k.wantWide():
			if hipHasLoad(body, wide) {
				if k.pack*hipBytes[k.wt] == 16 {
					nWide++
				} else {
					nWideX++ // fp8 weights: only the activations are 16 bytes
				}
			} else {
				noWide = append(noWide, k.name)
			}
		case k.pack == 1 && k.wt == "bf16" && k.xt == "bf16":
			nNarrow++
			if !hipHasLoad(body, short) {
				noNarrow = append(noNarrow, k.name)
			}
			if hipHasLoad(body, wide) {
				wideInNarrow = append(wideInNarrow, k.name)
			}
		}
	}
	if len(noISA) > 0 {
		t.Errorf("%s: %d kernels have no section in the disassembly: %s", arch, len(noISA), hipFirst(noISA, 10))
	}
	if len(noWide) > 0 {
		t.Errorf("%s: %d kernels with 16-byte packs have no 16-byte global load (%s): %s", arch, len(noWide), wide, hipFirst(noWide, 10))
	}
	if len(noNarrow) > 0 {
		t.Errorf("%s: %d pack-1 bf16 kernels have no 2-byte global load (%s): %s", arch, len(noNarrow), short, hipFirst(noNarrow, 10))
	}
	if len(wideInNarrow) > 0 {
		t.Errorf("%s: %d pack-1 bf16 kernels contain a 16-byte global load, so the 16-byte check cannot tell packs apart: %s", arch, len(wideInNarrow), hipFirst(wideInNarrow, 10))
	}
	if nWide < 1 {
		t.Errorf("%s: no kernel was checked for 16-byte loads (need f16/bf16 p8 or f32 p4 variants)", arch)
	}
	if nNarrow < 1 {
		t.Errorf("%s: no pack-1 bf16 kernel to check that 2-byte loads are told apart", arch)
	}

	summary := fmt.Sprintf("%-8s gemv %d kernels: %d symbols+.kd ok; 16-byte loads (%s) in %d f16/bf16-p8 & f32-p4 kernels + %d fp8-p8 kernels (16-byte activations); 2-byte loads in %d bf16-p1 kernels; real-header syntax ok; %s; compile %s (%s), total %s",
		arch, len(kernels), len(kernels)-len(missing), wide, nWide, nWideX, nNarrow, hipccNote, compiled, cached, time.Since(start).Round(time.Millisecond))
	t.Log(summary)
	return summary
}

// checkHIPCC compiles the source with a real hipcc when it supports arch
// (probed with a tiny kernel); results are cached like the clang compiles.
func checkHIPCC(ctx context.Context, t *testing.T, cache *Cache, hipcc *Tool, file, arch string, src, header []byte) string {
	t.Helper()
	dir := t.TempDir()
	flags := []string{"-x", "hip", "-std=c++17", "--offload-arch=" + arch, "--cuda-device-only", "-c", "-O3"}
	probe := filepath.Join(dir, "probe.hip")
	if err := os.WriteFile(probe, []byte("#include <hip/hip_runtime.h>\n__global__ void kg_probe(float* p) { p[threadIdx.x] = 1.0f; }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := run(ctx, dir, nil, hipcc.Path, append(append([]string{}, flags...), "-o", "probe.o", "probe.hip")...); err != nil {
		t.Logf("%s: hipcc (%s) cannot build for %s, skipping it for this arch: %s", arch, hipcc.Version, arch, hipFirstLine(err.Error()))
		return "hipcc: arch unsupported"
	}
	key := Key("hipcc-object", hipcc.Version, strings.Join(flags, " "), string(header), string(src))
	if cache.Get(key) != nil {
		return "hipcc ok (cached)"
	}
	base := filepath.Base(file)
	if err := os.WriteFile(filepath.Join(dir, base), src, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "kgen_hip.h"), header, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := run(ctx, dir, nil, hipcc.Path, append(append([]string{}, flags...), "-o", "out.co", base)...); err != nil {
		t.Errorf("%s: hipcc %s failed:\n%s", arch, strings.Join(flags, " "), indent(err.Error()))
		return "hipcc FAILED"
	}
	cache.Put(key, []byte("ok"))
	return "hipcc ok"
}

// hipKernel is one KG_KERNEL entry: its name and the template arguments of
// the body it calls, checked against the name.
type hipKernel struct {
	name   string
	wt, xt string // weight and activation types: f32, f16, bf16, fp8e4m3
	pack   int
}

// wantWide reports whether the kernel loads 16 bytes at once: the weights
// (f16/bf16 pack 8, f32 pack 4) or the activations (fp8 weights, pack 8).
func (k hipKernel) wantWide() bool {
	return k.pack*hipBytes[k.wt] == 16 || k.pack*hipBytes[k.xt] == 16
}

var hipBytes = map[string]int{"f32": 4, "f16": 2, "bf16": 2, "fp8e4m3": 1}

var hipEnum = map[string]string{"KG_F32": "f32", "KG_F16": "f16", "KG_BF16": "bf16", "KG_E4M3": "fp8e4m3"}

var (
	hipKernelRe = regexp.MustCompile(`^KG_KERNEL(?:_MIN)?\((\d+)(?:,\s*\d+)?\)\s+(\w+)\s*\(`)
	// Other families: <family>_<dtype>_<tile>[_...] calling body<XT, LAYOUT, WG, WAVES[, ...]>.
	hipQuantNameRe = regexp.MustCompile(`^[a-z0-9_]+?_(f32|f16|bf16)_([a-z0-9]+(?:_[a-z0-9]+)*)$`)
	hipQuantCallRe = regexp.MustCompile(`^\s*(\w+)<\s*(KG_\w+)\s*,\s*(KG_\w+)\s*,\s*(\d+)\s*,\s*(\d+)\s*(?:,\s*\d+\s*)*>\(`)
	hipNameRe      = regexp.MustCompile(`^gemv_(?:(fp8e4m3)_)?(f32|f16|bf16)_p(\d+)_r\d+_t\d+_(?:sg|sk\d+|wg\d+)$`)
	hipCallRe      = regexp.MustCompile(`gemv<\s*(KG_\w+)\s*,\s*(KG_\w+)\s*,\s*(\d+)\s*,\s*\d+\s*,\s*\d+\s*,\s*KG_\w+\s*,\s*(\d+)\s*,`)
)

// hipSource says how one family's kernels are spelled: each KG_KERNEL line
// names a kernel matching name, and the next line calls its body as call
// matches; kernel builds the entry from name's submatches, agree checks the
// call's submatches against it and the KG_KERNEL line's workgroup size.
type hipSource struct {
	name, call         *regexp.Regexp
	nameHelp, callHelp string
	kernel             func(name string, n []string) (hipKernel, bool)
	agree              func(k hipKernel, wg string, m []string) bool
}

// hipSources are the families' spellings; every other family uses
// hipOtherSource.
var hipSources = map[string]hipSource{
	"gemv": {
		name: hipNameRe, call: hipCallRe,
		nameHelp: "gemv_[fp8e4m3_]<type>_p<pack>_r<rows>_t<tokens>_<layout>",
		callHelp: "gemv<...>",
		kernel: func(name string, n []string) (hipKernel, bool) {
			k := hipKernel{name: name, wt: n[2], xt: n[2]}
			if n[1] != "" {
				k.wt = n[1]
			}
			k.pack, _ = strconv.Atoi(n[3])
			return k, true
		},
		agree: func(k hipKernel, wg string, m []string) bool {
			return hipEnum[m[1]] == k.wt && hipEnum[m[2]] == k.xt && m[3] == strconv.Itoa(k.pack) && m[4] == wg
		},
	},
	"mmvq": {
		name: hipMMVQNameRe, call: hipMMVQCallRe,
		nameHelp: "mmvq_<q4_k|q6_k|q8_0>_r<rows>_t<tokens>_<tile>",
		callHelp: "mmvq<FORMAT, ROWS, TOK, LAYOUT, WG, SPLITS>",
		kernel: func(name string, n []string) (hipKernel, bool) {
			return hipKernel{name: name, wt: n[1], xt: "q8_1"}, true
		},
		agree: func(k hipKernel, wg string, m []string) bool {
			return strings.ToLower(m[1]) == k.wt && m[2] == wg
		},
	},
}

// hipOtherSource is the spelling of families other than gemv and mmvq:
// names <family>_<dtype>_<tile>[_<more axes>], each calling its body with
// the dtype's enum and the workgroup size of its KG_KERNEL line (further
// integer template arguments, e.g. quant_q8k's passes, after WAVES).
func hipOtherSource(family string) hipSource {
	return hipSource{
		name: hipQuantNameRe, call: hipQuantCallRe,
		nameHelp: family + "_<dtype>_<tile>",
		callHelp: "its body<XT, LAYOUT, WG, WAVES[, ...]>",
		kernel: func(name string, n []string) (hipKernel, bool) {
			return hipKernel{name: name, wt: n[1], xt: n[1]}, strings.HasPrefix(name, family+"_")
		},
		agree: func(k hipKernel, wg string, m []string) bool {
			return hipEnum[m[2]] == k.xt && m[4] == wg
		},
	}
}

// hipKernels lists the KG_KERNEL entries of a family's source, and maps the
// lines of each entry (its KG_KERNEL line and the call inside) to its name.
func hipKernels(src []byte, family string) ([]hipKernel, map[int]string, error) {
	f, ok := hipSources[family]
	if !ok {
		f = hipOtherSource(family)
	}
	var ks []hipKernel
	lines := map[int]string{}
	seen := map[string]bool{}
	var pending *hipKernel
	var pendingWG string
	sc := bufio.NewScanner(bytes.NewReader(src))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for ln := 1; sc.Scan(); ln++ {
		line := sc.Text()
		if pending != nil {
			m := f.call.FindStringSubmatch(line)
			if m == nil {
				return nil, nil, fmt.Errorf("line %d: kernel %s does not call %s on its next line", ln, pending.name, f.callHelp)
			}
			lines[ln] = pending.name
			if !f.agree(*pending, pendingWG, m) {
				return nil, nil, fmt.Errorf("line %d: kernel %s (KG_KERNEL(%s)) has the call %q: the name and the template arguments disagree", ln, pending.name, pendingWG, strings.TrimSpace(m[0]))
			}
			ks = append(ks, *pending)
			pending = nil
			continue
		}
		if !strings.HasPrefix(line, "KG_KERNEL(") && !strings.HasPrefix(line, "KG_KERNEL_MIN(") {
			continue
		}
		m := hipKernelRe.FindStringSubmatch(line)
		if m == nil {
			return nil, nil, fmt.Errorf("line %d: cannot parse %q", ln, line)
		}
		name := m[2]
		if seen[name] {
			return nil, nil, fmt.Errorf("line %d: kernel %s defined twice", ln, name)
		}
		seen[name] = true
		n := f.name.FindStringSubmatch(name)
		var k hipKernel
		if n != nil {
			k, ok = f.kernel(name, n)
		}
		if n == nil || !ok {
			return nil, nil, fmt.Errorf("line %d: kernel name %s does not follow %s", ln, name, f.nameHelp)
		}
		lines[ln] = name
		pending, pendingWG = &k, m[1]
	}
	if err := sc.Err(); err != nil {
		return nil, nil, err
	}
	if pending != nil {
		return nil, nil, fmt.Errorf("kernel %s at the end of the file has no body", pending.name)
	}
	return ks, lines, nil
}

// hipFMARe matches float multiply-adds, fused or not (gfx9: v_mad_f32,
// v_mac_f32, v_fma_f32, v_fmac_f32, v_madak/madmk, v_pk_fma_f32; gfx11/12
// the same names, *_dx9_zero and v_fma_mix included): never integer ones
// such as v_mad_u64_u32.
var hipFMARe = regexp.MustCompile(`^v_(pk_)?(fma|fmac|mad|mac|fmaak|fmamk|madak|madmk)(_mix|_legacy|_dx9_zero)*_f(16|32|64)(_e32|_e64)?$`)

// hipDivFMAs is how many float multiply-adds one full-precision f32
// division holds: LLVM's AMDGPU lowering of an fdiv with no fast-math flag
// and no !fpmath accuracy (clang HIP's default,
// -fhip-fp32-correctly-rounded-divide-sqrt) is
//
//	v_div_scale_f32 (denominator), v_rcp_f32, v_div_scale_f32 (numerator),
//	v_fma_f32, v_fmac_f32 (refine the reciprocal), v_mul_f32 (quotient),
//	v_fma_f32, v_fmac_f32 (refine it), v_fma_f32 (residual),
//	v_div_fmas_f32, v_div_fixup_f32
//
// (the scheduler may interleave other instructions, and s_denorm_mode
// around it when f32 denormals are flushed): the correctly rounded
// division the kernels' KG_FDIV_RN relies on. The approximate lowerings
// (-ffast-math, -fno-hip-fp32-correctly-rounded-divide-sqrt) use v_rcp_f32
// with plain multiplies and no v_div_fixup_f32.
const hipDivFMAs = 5

// hipDivisions scans one kernel's mnemonics. A division opens at its first
// v_div_scale_f32 (two per division) and closes at its v_div_fixup_f32;
// float multiply-adds are allowed only while a division is open, at most
// hipDivFMAs per division, and only f32 v_fma/v_fmac; every v_rcp_f32 must
// lie inside one, and the counts must add up (2 scales, 1 reciprocal, 1
// v_div_fmas_f32 per fixup). It returns the number of divisions and the
// first violation ("" if none).
func hipDivisions(body []string) (divs int, bad string) {
	scales, fixups, fmas, rcps, fmass := 0, 0, 0, 0, 0
	for _, m := range body {
		open := (scales+1)/2 - fixups
		switch {
		case strings.HasPrefix(m, "v_div_scale_f32"):
			scales++
		case strings.HasPrefix(m, "v_div_fixup_f32"):
			if open <= 0 {
				return fixups, m + " without its v_div_scale_f32"
			}
			fixups++
		case strings.HasPrefix(m, "v_div_fmas_f32"):
			if open <= 0 {
				return fixups, m + " outside a division"
			}
			fmass++
		case strings.HasPrefix(m, "v_rcp_f32"):
			if open <= 0 {
				return fixups, m + " outside a full-precision division (an approximate reciprocal)"
			}
			rcps++
		case hipFMARe.MatchString(m):
			if open <= 0 || !hipDivFMARe.MatchString(m) {
				return fixups, m + " outside a full-precision division"
			}
			fmas++
			if fmas > hipDivFMAs*(fixups+open) {
				return fixups, fmt.Sprintf("%s: more than %d multiply-adds in a division", m, hipDivFMAs)
			}
		}
	}
	if scales != 2*fixups || rcps != fixups || fmass != fixups || fmas > hipDivFMAs*fixups {
		return fixups, fmt.Sprintf("unbalanced divisions: %d v_div_scale_f32, %d v_rcp_f32, %d v_div_fmas_f32, %d v_div_fixup_f32, %d multiply-adds", scales, rcps, fmass, fixups, fmas)
	}
	return fixups, ""
}

// hipDivFMARe: the multiply-adds a full-precision f32 division uses.
var hipDivFMARe = regexp.MustCompile(`^v_(fma|fmac)_f32(_e32|_e64)?$`)

// hipIRDivisions builds the optimized LLVM IR of a source with the code
// object's flags (what the backend lowers) and returns each kernel's count
// of f32 divisions, failing the test on any fdiv that carries a fast-math
// flag (fast, arcp, afn, contract, ...) or an !fpmath accuracy: LLVM
// defines a bare fdiv as correctly rounded, so the backend must keep it
// exact, and hipDivisions then finds it as the full-precision sequence.
func hipIRDivisions(ctx context.Context, t *testing.T, clang, file, arch string, src, header []byte) map[string]int {
	t.Helper()
	dir := t.TempDir()
	base := filepath.Base(file)
	if err := os.WriteFile(filepath.Join(dir, base), src, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "kgen_hip.h"), header, 0o644); err != nil {
		t.Fatal(err)
	}
	var flags []string
	for _, f := range HIPObjectFlags(arch) {
		if f != "-c" {
			flags = append(flags, f)
		}
	}
	ir, err := run(ctx, dir, nil, clang, append(flags, "-S", "-emit-llvm", "-o", "-", base)...)
	if err != nil {
		t.Fatalf("%s: clang -emit-llvm: %v", arch, err)
	}
	divs, bad := hipIRFdivs(string(ir))
	if len(bad) > 0 {
		t.Errorf("%s: %d f32 divisions in the IR are not plain (correctly rounded) fdivs: %s", arch, len(bad), hipFirst(bad, 5))
	}
	return divs
}

// hipIRFdivs counts the fdiv instructions of each function of an LLVM IR
// module and lists those that are not plain `fdiv float` with no metadata.
func hipIRFdivs(ir string) (map[string]int, []string) {
	divs := map[string]int{}
	var bad []string
	fn := ""
	for _, line := range strings.Split(ir, "\n") {
		if m := hipIRDefineRe.FindStringSubmatch(line); m != nil {
			fn = m[1]
			continue
		}
		if !hipIRFdivRe.MatchString(line) {
			continue
		}
		divs[fn]++
		if !hipIRPlainFdivRe.MatchString(line) {
			bad = append(bad, fn+": "+strings.TrimSpace(line))
		}
	}
	return divs, bad
}

var (
	hipIRDefineRe    = regexp.MustCompile(`^define .*@"?([\w.]+)"?\(`)
	hipIRFdivRe      = regexp.MustCompile(`= fdiv `)
	hipIRPlainFdivRe = regexp.MustCompile(`= fdiv float [^,]+, [^,!]+$`)
)

// checkHIPNoFMA checks the ISA of a family other than gemv (the
// quantizers): no float multiply-add outside full-precision f32 divisions,
// every f32 division full precision (hipDivisions) and as many of them in
// each kernel as the IR has plain fdivs (irDivs, hipIRDivisions), and float
// multiplies present (so the check reads the right code).
func checkHIPNoFMA(t *testing.T, arch, fam string, kernels []hipKernel, sections map[string][]string, irDivs map[string]int, missing int, hipccNote string, compiled time.Duration, cached string, start time.Time) string {
	t.Helper()
	var noISA, fma, count []string
	muls, divs := 0, 0
	for _, k := range kernels {
		body, ok := sections[k.name]
		if !ok {
			noISA = append(noISA, k.name)
			continue
		}
		n, bad := hipDivisions(body)
		divs += n
		if bad != "" {
			fma = append(fma, k.name+": "+bad)
		}
		if n != irDivs[k.name] {
			count = append(count, fmt.Sprintf("%s: %d in the IR, %d in the ISA", k.name, irDivs[k.name], n))
		}
		for _, m := range body {
			if strings.HasPrefix(m, "v_mul_f32") {
				muls++
			}
		}
	}
	if len(noISA) > 0 {
		t.Errorf("%s: %d %s kernels have no section in the disassembly: %s", arch, len(noISA), fam, hipFirst(noISA, 10))
	}
	if len(fma) > 0 {
		t.Errorf("%s: %d %s kernels contain a float multiply-add outside a full-precision division, or a division that is not full precision: a product was fused or contracted, or a quotient approximated, so the output is no longer byte-identical: %s", arch, len(fma), fam, hipFirst(fma, 10))
	}
	if len(count) > 0 {
		t.Errorf("%s: %d %s kernels have not as many full-precision divisions in the ISA as fdivs in the IR: %s", arch, len(count), fam, hipFirst(count, 10))
	}
	if muls == 0 {
		t.Errorf("%s: no v_mul_f32 in the %s kernels: the multiply-add check reads nothing", arch, fam)
	}
	summary := fmt.Sprintf("%-8s %s %d kernels: %d symbols+.kd ok; no float multiply-add outside %d full-precision f32 divisions (each a plain fdiv in the IR) (%d separate v_mul_f32); real-header syntax ok; %s; compile %s (%s), total %s",
		arch, fam, len(kernels), len(kernels)-missing, divs, muls, hipccNote, compiled, cached, time.Since(start).Round(time.Millisecond))
	t.Log(summary)
	return summary
}

// hipSymbols parses `llvm-readelf -s --wide` into FUNC and OBJECT names.
func hipSymbols(out []byte) (funcs, objects map[string]bool) {
	funcs, objects = map[string]bool{}, map[string]bool{}
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Fields(line)
		// Num: Value Size Type Bind Vis Ndx Name
		if len(f) < 8 || !strings.HasSuffix(f[0], ":") {
			continue
		}
		switch f[3] {
		case "FUNC":
			funcs[f[7]] = true
		case "OBJECT":
			objects[f[7]] = true
		}
	}
	return funcs, objects
}

var hipSymRe = regexp.MustCompile(`^[0-9a-f]+ <([^>]+)>:$`)

// hipDisasm splits `llvm-objdump -d` output into per-symbol instruction
// mnemonics.
func hipDisasm(out []byte) map[string][]string {
	sec := map[string][]string{}
	cur := ""
	for _, line := range strings.Split(string(out), "\n") {
		if m := hipSymRe.FindStringSubmatch(line); m != nil {
			cur = m[1]
			continue
		}
		if cur == "" || !strings.HasPrefix(line, "\t") {
			continue
		}
		if f := strings.Fields(line); len(f) > 0 {
			sec[cur] = append(sec[cur], f[0])
		}
	}
	return sec
}

// hipLoadPatterns returns the 16-byte and the 2-byte global load mnemonics of
// an arch's ISA.
func hipLoadPatterns(arch string) (wide, short *regexp.Regexp) {
	// gfx9 and gfx10 name loads by dwords; gfx11 and gfx12 by bits.
	if strings.HasPrefix(arch, "gfx9") || strings.HasPrefix(arch, "gfx10") {
		return regexp.MustCompile(`^global_load_dwordx4$`),
			regexp.MustCompile(`^global_load_(ushort|sshort|short_d16|short_d16_hi)$`)
	}
	return regexp.MustCompile(`^global_load_b128$`),
		regexp.MustCompile(`^global_load_(u16|i16|d16_b16|d16_hi_b16)$`)
}

// hipELFIsArch checks `llvm-readelf -h` output: machine EM_AMDGPU and the
// arch among the flags ("Flags: 0x53F, gfx90a, xnack, sramecc").
func hipELFIsArch(hdr []byte, arch string) bool {
	machine, archOK := false, false
	for _, line := range strings.Split(string(hdr), "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		switch strings.TrimSpace(k) {
		case "Machine":
			machine = strings.TrimSpace(v) == "EM_AMDGPU"
		case "Flags":
			for _, f := range strings.Split(v, ",") {
				if strings.TrimSpace(f) == arch {
					archOK = true
				}
			}
		}
	}
	return machine && archOK
}

func hipHasLoad(body []string, re *regexp.Regexp) bool {
	for _, m := range body {
		if re.MatchString(m) {
			return true
		}
	}
	return false
}

// hipAMDFiles keeps the sources of the spec's amdgcn archs, and fails when
// a source has no arch in the spec or an amdgcn arch lacks the source of a
// family with a HIP template.
func hipAMDFiles(t *testing.T, root string, files []string) []string {
	t.Helper()
	sp, err := spec.Load(os.DirFS(filepath.Join(root, "templates")), "templates")
	if err != nil {
		t.Fatalf("loading the spec: %v", err)
	}
	target := map[string]string{}
	hipIntDot = map[string]string{}
	for _, a := range sp.Archs {
		if a.Backend == spec.BackendHIP {
			target[a.Name] = a.Target
			hipIntDot[a.Name] = a.IntDot
		}
	}
	var fams []string
	hipFamilies = nil
	for _, f := range sp.Families {
		hipFamilies = append(hipFamilies, f.Name)
		if f.Templates[spec.BackendHIP] != "" {
			fams = append(fams, f.Name)
		}
	}
	have := map[string]bool{}
	var keep []string
	for _, f := range files {
		arch := hipArchOf(f)
		have[hipFamilyOf(f)+"_"+arch] = true
		switch target[arch] {
		case "amdgcn":
			keep = append(keep, f)
		case "":
			t.Errorf("%s: no HIP arch %q in templates/archs: a stale generated file? (run `gen`)", f, arch)
		default:
			t.Logf("%s: arch %s has target %s, not amdgcn: not an AMD compile", filepath.Base(f), arch, target[arch])
		}
	}
	var archs []string
	for a, tg := range target {
		if tg == "amdgcn" {
			archs = append(archs, a)
			for _, fam := range fams {
				if !have[fam+"_"+a] {
					t.Errorf("amdgcn arch %s has no generated/hip/%s_%s.hip (run `gen`)", a, fam, a)
				}
			}
		}
	}
	sort.Strings(archs)
	if len(keep) == 0 {
		t.Fatalf("no generated HIP source for an amdgcn arch (spec: %s)", strings.Join(archs, ", "))
	}
	return keep
}

// hipFamilies are the spec's family names (set by hipAMDFiles), to split
// <family>_<arch> where both may hold underscores.
var hipFamilies []string

// hipFamilyOf is the family of generated/hip/<family>_<arch>.hip: the
// longest spec family the name starts with (else up to the last underscore).
func hipFamilyOf(file string) string {
	base := strings.TrimSuffix(filepath.Base(file), ".hip")
	best := ""
	for _, f := range hipFamilies {
		if strings.HasPrefix(base, f+"_") && len(f) > len(best) {
			best = f
		}
	}
	if best == "" {
		best = base[:max(strings.LastIndex(base, "_"), 0)]
	}
	return best
}

// hipArchOf is the arch of generated/hip/<family>_<arch>.hip.
func hipArchOf(file string) string {
	base := strings.TrimSuffix(filepath.Base(file), ".hip")
	return strings.TrimPrefix(base, hipFamilyOf(file)+"_")
}

// hipModuleRoot walks up from the working directory to go.mod.
func hipModuleRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		up := filepath.Dir(dir)
		if up == dir {
			t.Fatal("go.mod not found above the working directory")
		}
		dir = up
	}
}

func hipFirst(names []string, n int) string {
	if len(names) <= n {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:n], ", "), len(names)-n)
}

func hipFirstLine(s string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return line
}

// hipIntDot is each HIP arch's int_dot (set by hipAMDFiles).
var hipIntDot map[string]string

// hipDotRe are the ISA mnemonics of each int_dot: v_dot4_i32_i8 (gfx9
// dot1-insts; gfx90a/gfx942 emit its VOP2 form v_dot4c_i32_i8) and
// v_dot4_i32_iu8 (gfx11/gfx12 dot8-insts).
var hipDotRe = map[string]*regexp.Regexp{
	"sdot4":  regexp.MustCompile(`^v_dot4c?_i32_i8(_e32|_e64)?$`),
	"sudot4": regexp.MustCompile(`^v_dot4_i32_iu8$`),
}

var (
	hipMMVQNameRe = regexp.MustCompile(`^mmvq_(q4_k|q6_k|q8_0)_r\d+_t\d+_(?:sg|wg\d+|sk\d+)$`)
	hipMMVQCallRe = regexp.MustCompile(`^\s*mmvq<\s*KG_(Q4_K|Q6_K|Q8_0)\s*,\s*\d+\s*,\s*\d+\s*,\s*KG_\w+\s*,\s*(\d+)\s*,`)
)

// checkHIPMMVQ checks the ISA of the quantized-weight GEMV: every kernel
// uses its arch's dot instruction (none where int_dot is empty), and q4_k
// kernels load weights 16 bytes at a time.
func checkHIPMMVQ(t *testing.T, arch string, kernels []hipKernel, sections map[string][]string, missing int, hipccNote string, compiled time.Duration, cached string, start time.Time) string {
	t.Helper()
	idot := hipIntDot[arch]
	dotRe := hipDotRe[idot]
	if idot != "" && dotRe == nil {
		t.Fatalf("%s: int_dot %q has no ISA mnemonic in this test (hipDotRe)", arch, idot)
	}
	anyDot := regexp.MustCompile(`^v_dot4`)
	wide, _ := hipLoadPatterns(arch)
	var noISA, noDot, strayDot, noWide []string
	dots, wideQ4 := 0, 0
	mnemonic := ""
	for _, k := range kernels {
		body, ok := sections[k.name]
		if !ok {
			noISA = append(noISA, k.name)
			continue
		}
		n := 0
		for _, m := range body {
			switch {
			case dotRe != nil && dotRe.MatchString(m):
				n++
				mnemonic = m
			case anyDot.MatchString(m):
				strayDot = append(strayDot, k.name+": "+m)
			}
		}
		dots += n
		if dotRe != nil && n == 0 {
			noDot = append(noDot, k.name)
		}
		if k.wt == "q4_k" {
			if hipHasLoad(body, wide) {
				wideQ4++
			} else {
				noWide = append(noWide, k.name)
			}
		}
	}
	if len(noISA) > 0 {
		t.Errorf("%s: %d mmvq kernels have no section in the disassembly: %s", arch, len(noISA), hipFirst(noISA, 10))
	}
	if len(noDot) > 0 {
		t.Errorf("%s: %d mmvq kernels have no %s instruction (int_dot %s): %s", arch, len(noDot), dotRe, idot, hipFirst(noDot, 10))
	}
	if len(strayDot) > 0 {
		t.Errorf("%s: %d mmvq kernels use another dot instruction than int_dot %q gives: %s", arch, len(strayDot), idot, hipFirst(strayDot, 10))
	}
	if len(noWide) > 0 {
		t.Errorf("%s: %d q4_k kernels have no 16-byte global load (%s): %s", arch, len(noWide), wide, hipFirst(noWide, 10))
	}
	if wideQ4 == 0 {
		t.Errorf("%s: no q4_k kernel was checked for 16-byte loads", arch)
	}
	dotNote := "no dot instruction (int_dot none)"
	if dotRe != nil {
		dotNote = fmt.Sprintf("%s (int_dot %s) in every kernel, %d in all", mnemonic, idot, dots)
	}
	summary := fmt.Sprintf("%-8s mmvq %d kernels: %d symbols+.kd ok; %s; 16-byte weight loads (%s) in %d q4_k kernels; real-header syntax ok; %s; compile %s (%s), total %s",
		arch, len(kernels), len(kernels)-missing, dotNote, wide, wideQ4, hipccNote, compiled, cached, time.Since(start).Round(time.Millisecond))
	t.Log(summary)
	return summary
}

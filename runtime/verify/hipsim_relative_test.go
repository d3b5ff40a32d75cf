package verify

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/kgen-dev/kgen/generated"
	kruntime "github.com/kgen-dev/kgen/runtime"
	"github.com/kgen-dev/kgen/runtime/table"
)

// contractDriver runs one kernel of an included generated HIP source on the
// CPU (testdata/kgen_cpu_sim.h) with the buffers and arguments of a planned
// launch, whatever the family: argv = kernel gx gy poison guard outfile,
// then one "in:SIZE:FILE", "out:SIZE" or "scratch:SIZE" per buffer in
// order, then "--" and the 32-bit arguments. Pointers and integers are
// passed to the kernel in its own parameter order (buffers first). GRACE:
// the rounds a lane may wait at a barrier on lanes that have finished
// (simDriverSource).
const contractDriver = `#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <type_traits>
#include <utility>
#include "kgen_hip.h"
#include "kgen_cpu_sched.h"

#include "SOURCE"

static void* P[16];
static long A[16];
static int NP;
template <typename T> static T arg(size_t i) {
  if constexpr (std::is_pointer_v<T>) return (T)P[i]; else return (T)A[i - NP];
}
template <typename... Ps, size_t... I> static void call(void (*f)(Ps...), std::index_sequence<I...>) { f(arg<Ps>(I)...); }
template <typename... Ps> static void invoke(void (*f)(Ps...)) { call(f, std::index_sequence_for<Ps...>{}); }

WRAPPERS
static const struct { const char* name; void (*fn)(); int wg; } kernels[] = {
KERNELS};

static void (*fn)();
static void lane_main(int) { fn(); }

int main(int argc, char** argv) {
  if (argc < 8) return 2;
  int wg = 0;
  for (size_t i = 0; i < sizeof kernels / sizeof kernels[0]; i++)
    if (strcmp(kernels[i].name, argv[1]) == 0) fn = kernels[i].fn, wg = kernels[i].wg;
  if (!fn) { fprintf(stderr, "no kernel %s\n", argv[1]); return 2; }
  const int gx = atoi(argv[2]), gy = atoi(argv[3]);
  const uint32_t poison = (uint32_t)strtoul(argv[4], NULL, 0);
  const long guard = atol(argv[5]);
  const char* outfile = argv[6];
  int a = 7, out = -1;
  long outBytes = 0;
  for (; a < argc && strcmp(argv[a], "--") != 0; a++, NP++) {
    char kind[16];
    long size = 0;
    char file[4096] = "";
    if (sscanf(argv[a], "%15[a-z]:%ld:%4095s", kind, &size, file) < 2) return 2;
    const long alloc = (size + guard + 64 + 15) / 16 * 16;
    uint8_t* b = (uint8_t*)aligned_alloc(16, alloc);
    memset(b, 0, alloc);
    if (strcmp(kind, "in") == 0) {
      FILE* f = fopen(file, "rb");
      if (!f || fread(b, 1, size, f) != (size_t)size) return 2;
      fclose(f);
    } else if (strcmp(kind, "out") == 0) {
      for (long i = 0; i + 4 <= alloc; i += 4) memcpy(b + i, &poison, 4);
      out = NP, outBytes = size + guard;
    }
    P[NP] = b;
  }
  for (int i = 0, j = a + 1; j < argc; i++, j++) A[i] = strtol(argv[j], NULL, 0);
  if (out < 0) return 2;
  kg_sim_grid_x = gx;
  for (int by = 0; by < gy; by++)
    for (int bx = 0; bx < gx; bx++)
      if (int rc = kg_sim_workgroup(wg, bx, by, lane_main, GRACE)) return rc;
  FILE* f = fopen(outfile, "wb");
  if (!f || fwrite(P[out], 1, outBytes, f) != (size_t)outBytes) return 2;
  fclose(f);
  return 0;
}
`

// simDriverSource is contractDriver for the kernels vs of source base
// (file name, in the include path), with grace: "0" where every lane of a
// workgroup passes the same barriers (the quantizers), "1 << 18" where
// lanes that finished early leave others waiting (the relative families'
// tails: barrier divergence).
func simDriverSource(base string, vs []*table.Variant, dev kruntime.Device, grace string) string {
	var wrappers, list strings.Builder
	for _, v := range vs {
		fmt.Fprintf(&wrappers, "static void k_%s() { invoke(%s); }\n", v.Name, v.Name)
		fmt.Fprintf(&list, "  {%q, k_%s, %d},\n", v.Name, v.Name, kruntime.WorkgroupSize(v, dev))
	}
	return strings.NewReplacer("SOURCE", base, "WRAPPERS", wrappers.String(), "KERNELS", list.String(), "GRACE", grace).Replace(contractDriver)
}

// contractSim runs variants of one HIP source on the CPU, with any
// family's launch contract.
type contractSim struct {
	bin, dir string
	dev      kruntime.Device
}

func (r *contractSim) Device() kruntime.Device { return r.dev }
func (r *contractSim) Name() string            { return "CPU simulation of " + r.dev.Arch }

func (r *contractSim) Run(l *kruntime.Launch, inputs map[string][]byte, poison uint32, guard int) ([]byte, error) {
	tmp, err := os.MkdirTemp(r.dir, "run")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	sizes := make([]int, len(l.Buffers))
	for i, b := range l.Buffers {
		sizes[i] = b.Size + guard
		if b.Dir == "in" {
			sizes[i] = len(inputs[b.Name])
		}
	}
	if err := l.CheckBuffers(sizes); err != nil {
		return nil, err
	}
	if l.Groups[2] != 1 {
		return nil, fmt.Errorf("%s: a grid z of %d (the simulation runs x and y)", l.Variant.Name, l.Groups[2])
	}
	outFile := filepath.Join(tmp, "out")
	argv := []string{l.Variant.Name, fmt.Sprint(l.Groups[0]), fmt.Sprint(l.Groups[1]), fmt.Sprint(poison), fmt.Sprint(guard), outFile}
	for i, b := range l.Buffers {
		switch b.Dir {
		case "in":
			f := filepath.Join(tmp, fmt.Sprint("in", i))
			if err := os.WriteFile(f, inputs[b.Name], 0o644); err != nil {
				return nil, err
			}
			argv = append(argv, fmt.Sprintf("in:%d:%s", b.Size, f))
		default:
			argv = append(argv, fmt.Sprintf("%s:%d", b.Dir, b.Size))
		}
	}
	argv = append(argv, "--")
	for _, a := range l.KernelArgs() {
		argv = append(argv, fmt.Sprint(a))
	}
	if out, err := exec.Command(r.bin, argv...).CombinedOutput(); err != nil {
		return nil, fmt.Errorf("%v: %s", err, out)
	}
	return os.ReadFile(outFile)
}

// keepKernels keeps the KG_KERNEL entries of src named in keep (an entry
// runs from its KG_KERNEL line to the next line that is "}").
func keepKernels(src []byte, keep map[string]bool) []byte {
	var out bytes.Buffer
	sc := bufio.NewScanner(bytes.NewReader(src))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	drop, in := false, false
	for sc.Scan() {
		line := sc.Text()
		if m := hipSimKernelRe.FindStringSubmatch(line); m != nil {
			in, drop = true, !keep[m[1]]
		}
		if !(in && drop) {
			out.WriteString(line + "\n")
		}
		if in && line == "}" {
			in = false
		}
	}
	return out.Bytes()
}

// paramS is a variant's named parameter ("" when absent or an integer).
func paramS(v table.Variant, name string) string {
	for _, p := range v.Params {
		if p.N == name {
			return p.S
		}
	}
	return ""
}

var hipSimKernelRe = regexp.MustCompile(`^KG_KERNEL\(\d+\)\s+(\w+)\s*\(`)

// TestHIPRelativeOnCPU runs HIP kernels of the families compared relative
// to a float64 reference (verify.compare: relative) on the CPU through
// testdata/kgen_cpu_sim.h and the same verification as a device: the
// family's verify cases, its reference and its bound. One amdgcn source per
// wave size (the simulation runs the plain-integer and generic paths of
// kgen_hip.h, so archs of one wave differ only in what it cannot see), and
// up to 24 variants of each, spread over the sorted names. No GPU needed;
// what it cannot show is a real compiler's and GPU's arithmetic (the ISA
// checks in gen/compile and `gen verify` on a device do).
func TestHIPRelativeOnCPU(t *testing.T) {
	clang, root, testdata := simTools(t)
	// Sources: per file, its variants; one amdgcn arch per (family, wave).
	byFile := map[string][]table.Variant{}
	amd := map[string]bool{}
	for _, a := range generated.Archs {
		// the spec names amdgcn archs gfx*, cuda ones sm* (whose sources
		// may hold tensor-core kernels the simulation cannot build)
		amd[a.Name] = a.Backend == "hip" && strings.HasPrefix(a.Name, "gfx")
	}
	// and the cuda-only mmvq tiles of the cuda archs (layout mma: mma.sync
	// s8 emulated by kgen_cpu_sim.h; layout stream: 32-lane warps), each
	// layout a sample of its own ("<source>/<layout>")
	mma := map[string]bool{}
	for _, v := range generated.Variants {
		cudaTile := v.Family == "mmvq" && (paramS(v, "layout") == "mma" || paramS(v, "layout") == "stream")
		if v.Backend != "hip" || !amd[v.Arch] && !cudaTile {
			continue
		}
		key := filepath.Base(v.Artifact.Path)
		if !amd[v.Arch] {
			sub := paramS(v, "layout")
			if t := paramS(v, "tile"); t == "sp8" {
				sub = "persist" // the persistent grid: every one of them
			} else if t == "mmp128" {
				sub = "mmp" // the persistent tensor-core tile: both of them
			} else if strings.HasPrefix(t, "mms") || t == "mml128" {
				sub = "mms" // LDS-staged activations: a sample of their own
			} else if sub == "mma" && paramS(v, "dtype") == "q6_k" {
				sub = "mmaq6" // q6_k's k16 scale groups: a sample of their own
			}
			key += "/" + sub
			mma[key] = true
		}
		fam, err := kruntime.Contract(v.Family)
		if err != nil {
			t.Fatal(err)
		}
		if fam.Verify.Compare == "relative" {
			byFile[key] = append(byFile[key], v)
		}
	}
	var files []string
	for f := range byFile {
		files = append(files, f)
	}
	sort.Strings(files)
	picked := map[string]bool{}
	var srcs []string
	for _, f := range files {
		vs := byFile[f]
		dev, err := kruntime.ArchDevice(vs[0].Arch)
		if err != nil {
			t.Fatal(err)
		}
		key := fmt.Sprint(vs[0].Family, "/", dev.Wave)
		if mma[f] {
			key = f
		}
		if !picked[key] {
			picked[key] = true
			srcs = append(srcs, f)
		}
	}
	if len(srcs) == 0 {
		t.Fatal("no HIP source of a relative-compare family for an amdgcn arch")
	}
	dir := t.TempDir()
	var mu sync.Mutex
	var summary []string
	t.Run("source", func(t *testing.T) {
		for _, key := range srcs {
			vs := byFile[key]
			base, layout, _ := strings.Cut(key, "/")
			name := strings.TrimSuffix(base, ".hip")
			if layout != "" {
				name += "_" + layout
			}
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				dev, err := kruntime.ArchDevice(vs[0].Arch)
				if err != nil {
					t.Fatal(err)
				}
				sort.Slice(vs, func(i, j int) bool { return vs[i].Name < vs[j].Name })
				limit := 24
				switch layout {
				case "mma":
					limit = 5 // each emulated MMA exchanges through the scheduler: slow
				case "mms":
					limit = 16 // all of them (mms128/192/256, mml128 at 4 token counts)
				case "mmaq6":
					limit = 4 // every token count of mma128
				case "stream":
					limit = 8
				case "persist":
					limit = 4
				case "mmp":
					limit = 2
				}
				step := (len(vs) + limit - 1) / limit
				keep := map[string]bool{}
				var sample []table.Variant
				var kernels []*table.Variant
				for i := 0; i < len(vs); i += step {
					sample = append(sample, vs[i])
					kernels = append(kernels, &vs[i])
					keep[vs[i].Name] = true
				}
				src, err := os.ReadFile(filepath.Join(root, "generated", "hip", base))
				if err != nil {
					t.Fatal(err)
				}
				d := filepath.Join(dir, name)
				if err := os.MkdirAll(d, 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(d, base), keepKernels(src, keep), 0o644); err != nil {
					t.Fatal(err)
				}
				drv := simDriverSource(base, kernels, dev, "1 << 18")
				if err := os.WriteFile(filepath.Join(d, "driver.cpp"), []byte(drv), 0o644); err != nil {
					t.Fatal(err)
				}
				bin := filepath.Join(d, "sim")
				args := []string{"-x", "c++", "-std=c++17", "-O1", "-ffp-contract=off", "-fno-exceptions", "-fno-rtti",
					"-nostdlib++", "-DKGEN_CPU_SIM", "-I", d, "-I", filepath.Join(root, "generated", "hip"), "-I", testdata,
					"-o", bin, filepath.Join(d, "driver.cpp")}
				// KGEN_SIM_FLAGS: extra compiler flags, e.g. -fsanitize=address
				// to catch a kernel's out-of-bounds LDS (static arrays here)
				args = append(args, strings.Fields(os.Getenv("KGEN_SIM_FLAGS"))...)
				cmd := exec.Command(clang, args...)
				if out, err := cmd.CombinedOutput(); err != nil {
					t.Fatalf("compile the CPU simulation of %s: %v\n%s", base, err, out)
				}
				rep, err := Run(&contractSim{bin: bin, dir: d, dev: dev}, sample, Options{Seed: 3})
				if err != nil {
					t.Fatal(err)
				}
				for _, f := range rep.Failures {
					t.Error(f)
				}
				for _, s := range rep.Skipped {
					t.Error("skipped: " + s)
				}
				if rep.Verified != len(sample) || rep.Passed != len(sample) {
					t.Errorf("%s: %s", base, rep.Summary())
				}
				mu.Lock()
				summary = append(summary, fmt.Sprintf("%s: %d of %d kernels, %d shape runs: %s", base, len(sample), len(vs), rep.Shapes, rep.Summary()))
				mu.Unlock()
			})
		}
	})
	sort.Strings(summary)
	for _, s := range summary {
		t.Log(s)
	}
}

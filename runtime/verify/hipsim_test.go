package verify

import (
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/kgen-dev/kgen/generated"
	kruntime "github.com/kgen-dev/kgen/runtime"
	"github.com/kgen-dev/kgen/runtime/table"
)

// simDriver runs one kernel of an included generated HIP source on the CPU
// (see testdata/kgen_cpu_sim.h): argv = kernel rows K gx gy xfile yfile
// ybytes poison. Y is filled with the 32-bit poison, the grid runs
// workgroup by workgroup, and Y is written back.
const simDriver = `#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "kgen_hip.h"
#include "kgen_cpu_sched.h"

#include "SOURCE"

typedef void (*kernel_fn)(const uint8_t*, uint32_t*, int, int, int);
static const struct { const char* name; kernel_fn fn; int wg; } kernels[] = {
KERNELS};

static kernel_fn fn;
static const uint8_t* X;
static uint32_t* Y;
static int rows, K, gx;

static void lane_main(int) { fn(X, Y, rows, K, gx); }

int main(int argc, char** argv) {
  if (argc != 10) return 2;
  int wg = 0;
  for (size_t i = 0; i < sizeof kernels / sizeof kernels[0]; i++)
    if (strcmp(kernels[i].name, argv[1]) == 0) fn = kernels[i].fn, wg = kernels[i].wg;
  if (!fn) { fprintf(stderr, "no kernel %s\n", argv[1]); return 2; }
  rows = atoi(argv[2]), K = atoi(argv[3]), gx = atoi(argv[4]);
  const int gy = atoi(argv[5]);
  const long ybytes = atol(argv[8]);
  const uint32_t poison = (uint32_t)strtoul(argv[9], NULL, 0);
  FILE* f = fopen(argv[6], "rb");
  if (!f) return 2;
  fseek(f, 0, SEEK_END);
  const long xbytes = ftell(f);
  fseek(f, 0, SEEK_SET);
  uint8_t* x = (uint8_t*)aligned_alloc(16, (xbytes + 64) / 16 * 16);
  if (fread(x, 1, xbytes, f) != (size_t)xbytes) return 2;
  fclose(f);
  X = x;
  Y = (uint32_t*)aligned_alloc(16, (ybytes + 15) / 16 * 16);
  for (long i = 0; i < (ybytes + 15) / 16 * 4; i++) Y[i] = poison;
  // the quantizers' lanes all pass the same barriers: no grace
  kg_sim_grid_x = gx;
  for (int by = 0; by < gy; by++)
    for (int bx = 0; bx < gx; bx++)
      if (int rc = kg_sim_workgroup(wg, bx, by, lane_main, 0)) return rc;
  f = fopen(argv[7], "wb");
  if (!f || fwrite(Y, 1, ybytes, f) != (size_t)ybytes) return 2;
  fclose(f);
  return 0;
}
`

// simRunner runs quantizer variants of one HIP source on the CPU.
type simRunner struct {
	bin, dir string
	dev      kruntime.Device
}

func (r *simRunner) Device() kruntime.Device { return r.dev }
func (r *simRunner) Name() string            { return "CPU simulation of " + r.dev.Arch }

// Run implements Runner for the quantizer kernels' signature: (X, Y, then
// the three launch arguments).
func (r *simRunner) Run(l *kruntime.Launch, inputs map[string][]byte, poison uint32, guard int) ([]byte, error) {
	if len(l.Buffers) != 2 || l.Buffers[0].Dir != "in" || l.Buffers[1].Dir != "out" || len(l.Args) != 3 {
		return nil, fmt.Errorf("the CPU simulation runs kernels of (in, out, 3 arguments); %s has buffers %v and arguments %v", l.Variant.Name, l.Buffers, l.ArgNames)
	}
	if err := l.CheckBuffers([]int{len(inputs[l.Buffers[0].Name]), l.Buffers[1].Size + guard}); err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp(r.dir, "run")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	xf, yf := filepath.Join(tmp, "x"), filepath.Join(tmp, "y")
	if err := os.WriteFile(xf, inputs[l.Buffers[0].Name], 0o644); err != nil {
		return nil, err
	}
	n := l.Buffers[1].Size + guard
	argv := []string{l.Variant.Name}
	for _, a := range l.Args[:2] {
		argv = append(argv, fmt.Sprint(a))
	}
	// The third argument is the folded grid's x count; the driver takes
	// the grid from its own arguments.
	if l.Args[2] != l.Groups[0] {
		return nil, fmt.Errorf("%s: argument %s = %d, grid x = %d", l.Variant.Name, l.ArgNames[2], l.Args[2], l.Groups[0])
	}
	argv = append(argv, fmt.Sprint(l.Groups[0]), fmt.Sprint(l.Groups[1]), xf, yf, fmt.Sprint(n), fmt.Sprint(poison))
	out, err := exec.Command(r.bin, argv...).CombinedOutput()
	if err != nil {
		return nil, fmt.Errorf("%v: %s", err, out)
	}
	return os.ReadFile(yf)
}

// simDivModes are the builds of each source the CPU simulation runs: the
// host's correctly rounded division taken as the platform's (KG_FDIV_RN 1,
// the path CUDA and AMD builds compile), and quotients skewed by up to 3
// ulps or garbled (testdata/kgen_cpu_sim.h), which the kernels' integer
// certification must correct or send to long division (KG_FDIV_RN 0: the
// algorithm of the Vulkan kernels).
var simDivModes = []struct {
	name, doc string
	flags     []string
}{
	{"", "platform division", nil},
	{"-certify", "skewed division, certified", []string{"-DKG_FDIV_RN=0", "-DKG_SIM_DIV_SKEW"}},
}

// TestHIPQuantOnCPU runs every HIP quantizer kernel of every arch (wave 64
// and wave 32, AMD and the sm90 CUDA-target sources) on the CPU through
// testdata/kgen_cpu_sim.h, built twice (simDivModes), and checks it byte
// for byte against runtime/ref, on the same random and crafted blocks as
// the device verification. No GPU is needed; what it cannot show is how a
// real compiler and GPU round, which the ISA check (gen/compile's
// TestHIPCompile: no float multiply-add outside full-precision divisions)
// and the exact integer arithmetic of the kernels address.
func TestHIPQuantOnCPU(t *testing.T) {
	clang := os.Getenv("KGEN_CLANG")
	if clang == "" {
		clang = "clang++-19"
	}
	clang, err := exec.LookPath(clang)
	if err != nil {
		t.Fatalf("the CPU simulation needs clang++-19 (apt-get install clang-19; or set KGEN_CLANG): %v", err)
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	testdata, err := filepath.Abs("testdata")
	if err != nil {
		t.Fatal(err)
	}
	srcs, err := filepath.Glob(filepath.Join(root, "generated", "hip", "quant_*.hip"))
	if err != nil || len(srcs) == 0 {
		t.Fatalf("no generated/hip/quant_*.hip (%v)", err)
	}
	byFile := map[string][]*table.Variant{}
	for i := range generated.Variants {
		v := &generated.Variants[i]
		if v.Backend != "hip" {
			continue
		}
		fam, err := kruntime.Contract(v.Family)
		if err != nil {
			t.Fatal(err)
		}
		if fam.Verify.Compare == "exact" {
			byFile[filepath.Base(v.Artifact.Path)] = append(byFile[filepath.Base(v.Artifact.Path)], v)
		}
	}
	dir := t.TempDir()
	var mu sync.Mutex
	kernels, runs := 0, 0
	t.Run("source", func(t *testing.T) {
		for _, src := range srcs {
			base := filepath.Base(src)
			vs := byFile[base]
			if len(vs) == 0 {
				t.Errorf("%s holds no table variant", base)
				continue
			}
			t.Run(strings.TrimSuffix(base, ".hip"), func(t *testing.T) {
				t.Parallel()
				dev, err := kruntime.ArchDevice(vs[0].Arch)
				if err != nil {
					t.Fatal(err)
				}
				var list strings.Builder
				for _, v := range vs {
					fmt.Fprintf(&list, "  {%q, %s, %d},\n", v.Name, v.Name, kruntime.WorkgroupSize(v, dev))
				}
				drv := strings.NewReplacer("SOURCE", base, "KERNELS", list.String()).Replace(simDriver)
				d := filepath.Join(dir, strings.TrimSuffix(base, ".hip"))
				if err := os.MkdirAll(d, 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(d, "driver.cpp"), []byte(drv), 0o644); err != nil {
					t.Fatal(err)
				}
				n := 0
				for _, mode := range simDivModes {
					bin := filepath.Join(d, "sim"+mode.name)
					args := []string{"-x", "c++", "-std=c++17", "-O1", "-ffp-contract=off", "-fno-exceptions", "-fno-rtti",
						"-nostdlib++", "-DKGEN_CPU_SIM"}
					args = append(args, mode.flags...)
					args = append(args, "-I", filepath.Join(root, "generated", "hip"), "-I", testdata, "-o", bin, filepath.Join(d, "driver.cpp"))
					if out, err := exec.Command(clang, args...).CombinedOutput(); err != nil {
						t.Fatalf("compile the CPU simulation of %s (%s): %v\n%s", base, mode.doc, err, out)
					}
					r := &simRunner{bin: bin, dir: d, dev: dev}
					rng := rand.New(rand.NewPCG(11, uint64(len(base))))
					for _, v := range vs {
						f := formatOf(t, v)
						cases := [][2]int{{1, f.block}, {3, 3 * f.block}, {5, 8 * f.block}}
						if f.pad {
							cases = append(cases, [2]int{1, 5}, [2]int{3, 1000})
						}
						if f.block == 32 {
							// 195 blocks: full workgroups of up to 64 blocks
							// straddling rows, then a partial one (the Q8_1
							// lane tile stages full ones through LDS)
							cases = append(cases, [2]int{3, 65 * f.block})
						}
						c := mustChecker(t, v, dev)
						for _, rk := range cases {
							n++
							op := quantOp(v, rk[0], rk[1])
							if blocks, msg := c.check(r, rng, op); msg != "" {
								t.Errorf("%s %s (%s): %s", v.Name, caseName(op), mode.doc, msg)
							} else if blocks == 0 {
								t.Errorf("%s %s (%s): no block compared", v.Name, caseName(op), mode.doc)
							}
						}
					}
				}
				mu.Lock()
				kernels += len(vs)
				runs += n
				mu.Unlock()
			})
		}
	})
	t.Logf("%d HIP quantizer kernels in %d sources byte-identical on the CPU (%d runs)", kernels, len(srcs), runs)
}

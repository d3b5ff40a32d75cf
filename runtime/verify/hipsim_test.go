package verify

import (
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

// simTools finds what every CPU simulation needs: clang++-19 (or
// $KGEN_CLANG), the module root (generated/hip) and testdata
// (kgen_cpu_sim.h).
func simTools(t *testing.T) (clang, root, testdata string) {
	t.Helper()
	clang = os.Getenv("KGEN_CLANG")
	if clang == "" {
		clang = "clang++-19"
	}
	clang, err := exec.LookPath(clang)
	if err != nil {
		t.Fatalf("the CPU simulation needs clang++-19 (apt-get install clang-19; or set KGEN_CLANG): %v", err)
	}
	if root, err = filepath.Abs("../.."); err != nil {
		t.Fatal(err)
	}
	if testdata, err = filepath.Abs("testdata"); err != nil {
		t.Fatal(err)
	}
	return clang, root, testdata
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
	clang, root, testdata := simTools(t)
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
				drv := simDriverSource(base, vs, dev, "0") // the quantizers' lanes all pass the same barriers
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
					r := &contractSim{bin: bin, dir: d, dev: dev}
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

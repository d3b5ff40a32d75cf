package verify

import (
	"bytes"
	"encoding/binary"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/kgen-dev/kgen/generated"
	kruntime "github.com/kgen-dev/kgen/runtime"
	"github.com/kgen-dev/kgen/runtime/ref"
	"github.com/kgen-dev/kgen/runtime/table"

	"github.com/kgen-dev/kgen/runtime/internal/golden"
)

// exactVariants returns the table's variants of a backend and arch whose
// family's contract compares byte for byte (the quantizers).
func exactVariants(t *testing.T, backend, arch string) []*table.Variant {
	t.Helper()
	var vs []*table.Variant
	for i := range generated.Variants {
		v := &generated.Variants[i]
		if v.Backend != backend || v.Arch != arch {
			continue
		}
		fam, err := kruntime.Contract(v.Family)
		if err != nil {
			t.Fatal(err)
		}
		if fam.Verify.Compare == "exact" {
			vs = append(vs, v)
		}
	}
	if len(vs) == 0 {
		t.Fatalf("no byte-exact (quantizer) variants for %s/%s in the table", backend, arch)
	}
	return vs
}

// blockFormat is what the tests need to know of a block reference: the
// elements per block and whether rows are padded to whole blocks (K any).
type blockFormat struct {
	block int
	pad   bool
	kind  string // its cases' kind in runtime/ref/testdata/golden.txt
}

var blockFormats = map[string]blockFormat{
	"q8k":  {block: ref.QK_K, kind: "q8k"},
	"q8_1": {block: ref.QK8_1, pad: true, kind: "q81"},
}

// formatOf is the block format of v's family's reference.
func formatOf(t *testing.T, v *table.Variant) blockFormat {
	t.Helper()
	fam, err := kruntime.Contract(v.Family)
	if err != nil {
		t.Fatal(err)
	}
	f, ok := blockFormats[fam.Verify.Reference]
	if !ok {
		t.Fatalf("%s: no block format for reference %q", v.Key(), fam.Verify.Reference)
	}
	return f
}

// quantOp is rows rows of K elements for v.
func quantOp(v *table.Variant, rows, K int) kruntime.Op {
	return kruntime.Op{Family: v.Family, Dtype: v.Param("dtype"), M: rows, N: 1, K: K}
}

// mustChecker is the verification of v on dev.
func mustChecker(t *testing.T, v *table.Variant, dev kruntime.Device) *checker {
	t.Helper()
	c, err := newChecker(v, dev)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// withParam returns a copy of v whose parameter (and specialization
// constant) name has the value val: the same blob run with another
// geometry.
func withParam(v *table.Variant, name string, val int) *table.Variant {
	c := *v
	c.Params = append([]table.Param(nil), v.Params...)
	for i := range c.Params {
		if c.Params[i].N == name {
			c.Params[i].I = int64(val)
		}
	}
	c.Spec = append([]table.SpecConst(nil), v.Spec...)
	for i := range c.Spec {
		if c.Spec[i].Param == name {
			c.Spec[i].Value = uint32(val)
		}
	}
	return &c
}

// TestQuantGeometries runs the Vulkan quantizer blobs with workgroup sizes
// the table does not list, so that lavapipe (subgroup 8) executes every
// lanes-per-block geometry the kernels have on other devices: the workgroup
// blob with 8..512 lanes covers 1 to 32 elements per lane through the same
// code as the subgroup blob on subgroups of 8 to 64 (only the exchange
// differs: shared memory instead of shuffles), and the subgroup blob with
// 1 to 4 waves covers several blocks per workgroup. Geometry does not depend
// on the input type, so the f32 blobs stand for all three.
func TestQuantGeometries(t *testing.T) {
	r := openLavapipe(t)
	rng := rand.New(rand.NewPCG(7, 8))
	runs := 0
	for _, v := range exactVariants(t, "vulkan", "llvmpipe") {
		if v.Param("dtype") != "f32" {
			continue // geometry does not depend on the input type (only loads do)
		}
		var geoms []*table.Variant
		switch v.Param("layout") {
		case "workgroup":
			for _, wg := range []int{8, 16, 32, 64, 128, 512} {
				geoms = append(geoms, withParam(v, "wg", wg))
			}
		case "subgroup":
			if v.IntParam("waves") == 1 {
				for _, w := range []int{2, 3} {
					geoms = append(geoms, withParam(v, "waves", w))
				}
			}
		case "thread":
			for _, wg := range []int{1, 8, 128} {
				geoms = append(geoms, withParam(v, "wg", wg))
			}
		}
		f := formatOf(t, v)
		cases := [][2]int{{3, 2 * f.block}, {24, 12 * f.block}}
		if f.pad {
			cases = append(cases, [2]int{5, 3*f.block + 7})
		}
		for _, g := range geoms {
			c := mustChecker(t, g, r.Device())
			for _, rk := range cases {
				runs++
				op := quantOp(g, rk[0], rk[1])
				blocks, msg := c.check(r, rng, op)
				if msg != "" {
					t.Errorf("%s (%v) %s: %s", g.Name, g.ParamMap(), caseName(op), msg)
				} else if want := rk[0] * ((rk[1] + f.block - 1) / f.block); blocks != want {
					t.Errorf("%s (%v) %s: %d blocks compared, want %d", g.Name, g.ParamMap(), caseName(op), blocks, want)
				}
			}
		}
	}
	t.Logf("%d geometry runs byte-identical", runs)
}

// TestQuantSkewedDivision runs every quantizer blob on lavapipe with the
// test-only specialization constant DIV_SKEW (templates/quant/glsl.inc.tmpl)
// set: each OpFDiv quotient is moved by up to 3 ulps or garbled before the
// kernels certify it, as a device whose division is not correctly rounded
// (Vulkan allows 2.5 ulps) would give it; the lane tile's uncertified 1 / d
// (f32_inv_hw) is moved by up to 3 ulps, never garbled. Lavapipe divides
// exactly, so without this the corrections and fallbacks of the
// certification, and the lane tile's widened near-tie window, would never
// run here. The bytes must not change.
func TestQuantSkewedDivision(t *testing.T) {
	const divSkewID = 100
	r := openLavapipe(t)
	rng := rand.New(rand.NewPCG(9, 10))
	runs := 0
	for _, v := range exactVariants(t, "vulkan", "llvmpipe") {
		s := *v
		s.Spec = append(append([]table.SpecConst(nil), v.Spec...), table.SpecConst{ID: divSkewID, Param: "div_skew", Value: 1})
		f := formatOf(t, v)
		cases := [][2]int{{3, 2 * f.block}, {24, 12 * f.block}}
		if f.pad {
			cases = append(cases, [2]int{5, 3*f.block + 7})
		}
		c := mustChecker(t, &s, r.Device())
		for _, rk := range cases {
			runs++
			op := quantOp(&s, rk[0], rk[1])
			blocks, msg := c.check(r, rng, op)
			if msg != "" {
				t.Errorf("%s with skewed division %s: %s", v.Name, caseName(op), msg)
			} else if want := rk[0] * ((rk[1] + f.block - 1) / f.block); blocks != want {
				t.Errorf("%s with skewed division %s: %d blocks compared, want %d", v.Name, caseName(op), blocks, want)
			}
		}
	}
	t.Logf("%d runs with skewed division byte-identical", runs)
}

// TestQuantGolden runs the hand-derived golden vectors of
// runtime/ref/testdata/golden.txt (bytes worked out from the definitions,
// not by running runtime/ref) through every f32 quantizer variant on
// lavapipe, and through f16/bf16 variants where the inputs are exact in
// that type.
func TestQuantGolden(t *testing.T) {
	r := openLavapipe(t)
	cases, err := golden.Read("../ref/testdata/golden.txt")
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, v := range exactVariants(t, "vulkan", "llvmpipe") {
		kind := formatOf(t, v).kind
		chk := mustChecker(t, v, r.Device())
		for _, c := range cases {
			if c.Kind != kind {
				continue
			}
			x, dec, err := ref.Encode(chk.dtype.Act, c.X)
			if err != nil {
				t.Fatal(err)
			}
			if !sameBits(dec, c.X) {
				continue // not representable in this input type
			}
			l, err := kruntime.Plan(v, r.Device(), quantOp(v, 1, len(c.X)))
			if err != nil {
				t.Fatalf("%s %s: %v", v.Name, c.Name, err)
			}
			var in string
			for _, b := range l.Buffers {
				if b.Dir == "in" {
					in = b.Name
				}
			}
			got, err := r.Run(l, map[string][]byte{in: x}, chk.vf.Poison, chk.vf.Guard)
			if err != nil {
				t.Fatalf("%s %s: %v", v.Name, c.Name, err)
			}
			if !bytes.Equal(got[:len(c.Want)], c.Want) {
				t.Errorf("%s golden %s (golden.txt:%d):\n got %x\nwant %x", v.Name, c.Name, c.Line, got[:len(c.Want)], c.Want)
			}
			checked++
		}
	}
	if checked < 2*len(cases) {
		t.Fatalf("only %d golden runs for %d cases", checked, len(cases))
	}
	t.Logf("%d golden runs (%d cases) match the hand-derived bytes", checked, len(cases))
}

func sameBits(a, b []float32) bool {
	for i := range a {
		if math.Float32bits(a[i]) != math.Float32bits(b[i]) && !(a[i] != a[i] && b[i] != b[i]) {
			return false
		}
	}
	return true
}

// TestQuantNoContraction checks the compiled quantizer blobs: every float
// addition and multiplication carries the NoContraction decoration (GLSL
// `precise`), so no driver may fuse the rounding product into the
// 12582912 addition or reassociate a sum. Lavapipe never fuses, so the
// verification run alone cannot show this.
func TestQuantNoContraction(t *testing.T) {
	const (
		opDecorate    = 71
		opFAdd        = 129
		opFMul        = 133
		noContraction = 42
	)
	seen := map[string]bool{}
	for _, v := range exactVariants(t, "vulkan", "llvmpipe") {
		if seen[v.Artifact.Path] {
			continue
		}
		seen[v.Artifact.Path] = true
		b, err := kruntime.SPIRV(v)
		if err != nil {
			t.Fatal(err)
		}
		words := make([]uint32, len(b)/4)
		for i := range words {
			words[i] = binary.LittleEndian.Uint32(b[4*i:])
		}
		decorated := map[uint32]bool{}
		var ops []uint32
		for i := 5; i < len(words); {
			n, op := int(words[i]>>16), words[i]&0xFFFF
			if n == 0 || i+n > len(words) {
				t.Fatalf("%s: malformed SPIR-V at word %d", v.Artifact.Path, i)
			}
			switch {
			case op == opDecorate && n >= 3 && words[i+2] == noContraction:
				decorated[words[i+1]] = true
			case op == opFAdd || op == opFMul:
				ops = append(ops, words[i+2])
			}
			i += n
		}
		if len(ops) == 0 {
			t.Fatalf("%s: no float add or multiply found", v.Artifact.Path)
		}
		for _, id := range ops {
			if !decorated[id] {
				t.Errorf("%s: float op %%%d is not NoContraction (a `precise` is missing)", v.Artifact.Path, id)
			}
		}
		t.Logf("%s: %d float adds/multiplies, all NoContraction", v.Artifact.Path, len(ops))
	}
}

package runtime

import (
	"errors"
	"io/fs"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/kgen-dev/kgen/generated"
	"github.com/kgen-dev/kgen/runtime/table"
)

// findVariant returns the first table variant for which ok holds.
func findVariant(t *testing.T, what string, ok func(v *table.Variant) bool) *table.Variant {
	t.Helper()
	for i := range generated.Variants {
		if v := &generated.Variants[i]; ok(v) {
			return v
		}
	}
	t.Skipf("the table has no %s", what)
	return nil
}

// fakeRunner launches the way the verify runners do: plan the shape, check
// the device, the offsets, the buffers and the blob, and only then launch.
// It counts launches, so a test can show a refusal launched nothing.
type fakeRunner struct {
	dev      Device
	launched int
}

type fakeCall struct {
	T, N, K                       int
	wOff, xOff                    int
	w, x, scale, y, part, counter int // buffer bytes; -1: exactly what the plan needs
}

func (r *fakeRunner) run(v *table.Variant, c fakeCall) error {
	l, err := Plan(v, r.dev, Op{M: c.T, N: c.N, K: c.K})
	if err != nil {
		if l != nil {
			return errors.New("a refusal returned a plan")
		}
		return err
	}
	if err := CheckOffsets(v, map[string]int{"W": c.wOff, "X": c.xOff}); err != nil {
		return err
	}
	var sizes []int
	for i, have := range []int{c.w, c.x, c.scale, c.y, c.part, c.counter} {
		if have < 0 {
			have = l.Buffers[i].Size
		}
		sizes = append(sizes, have)
	}
	if err := l.CheckBuffers(sizes); err != nil {
		return err
	}
	if v.Backend == "vulkan" {
		if _, err := SPIRV(v); err != nil {
			return err
		}
	}
	r.launched++
	return nil
}

func call(T, N, K int) fakeCall {
	return fakeCall{T: T, N: N, K: K, w: -1, x: -1, scale: -1, y: -1, part: -1, counter: -1}
}

// expectRefusal runs c and wants a *RefusedError mentioning want, with
// nothing launched.
func expectRefusal(t *testing.T, r *fakeRunner, v *table.Variant, c fakeCall, want string) {
	t.Helper()
	before := r.launched
	err := r.run(v, c)
	var re *RefusedError
	if !errors.As(err, &re) || !errors.Is(err, ErrRefused) {
		t.Fatalf("%s %+v: got %v (%T), want a *RefusedError", v.Name, c, err, err)
	}
	if re.Variant != v.Name || !strings.Contains(re.Reason, want) {
		t.Errorf("%s %+v: refusal %q, want the variant's name and %q", v.Name, c, err, want)
	}
	if r.launched != before {
		t.Errorf("%s %+v: refused but launched", v.Name, c)
	}
}

func gemvWith(t *testing.T, what string, ok func(v *table.Variant) bool) (*table.Variant, *fakeRunner) {
	t.Helper()
	v := findVariant(t, what, func(v *table.Variant) bool { return v.Family == "gemv" && v.Backend == "hip" && ok(v) })
	dev, err := ArchDevice(v.Arch)
	if err != nil {
		t.Fatal(err)
	}
	return v, &fakeRunner{dev: dev}
}

// TestRefuseShapeOutsideRange: T past the variant's tokens, T, N or K zero
// or negative.
func TestRefuseShapeOutsideRange(t *testing.T) {
	v, r := gemvWith(t, "gemv variant with tokens >= 2", func(v *table.Variant) bool { return v.IntParam("tokens") >= 2 })
	tokens, pack := v.IntParam("tokens"), v.IntParam("pack")
	if err := r.run(v, call(tokens, 64, 64*pack)); err != nil || r.launched != 1 {
		t.Fatalf("the largest T the variant takes: %v", err)
	}
	expectRefusal(t, r, v, call(tokens+1, 64, 64*pack), "at most tokens tokens per launch")
	expectRefusal(t, r, v, call(0, 64, 64*pack), "serves 1..8 tokens (m=0")
	expectRefusal(t, r, v, call(-1, 64, 64*pack), "serves 1..8 tokens (m=-1")
	expectRefusal(t, r, v, call(1, 0, 64*pack), "empty shapes have nothing to compute (m=1 n=0")
	expectRefusal(t, r, v, call(1, 64, 0), "empty shapes")
	expectRefusal(t, r, v, call(1, -64, 64*pack), "empty shapes")
	expectRefusal(t, r, v, call(1, 1<<20, 1<<12*pack), "32-bit")
}

// TestRefuseKDivisibility: K not a multiple of pack.
func TestRefuseKDivisibility(t *testing.T) {
	v, r := gemvWith(t, "gemv variant with pack >= 2", func(v *table.Variant) bool { return v.IntParam("pack") >= 2 })
	pack := v.IntParam("pack")
	expectRefusal(t, r, v, call(1, 64, 64*pack+1), "K must be a multiple of pack")
	expectRefusal(t, r, v, call(1, 64, pack-1), "K must be a multiple of pack")
	if err := r.run(v, call(1, 64, 64*pack)); err != nil {
		t.Fatal(err)
	}
}

// TestRefuseSmallBuffers: each buffer one byte short of what the shape
// needs is refused, naming the buffer.
func TestRefuseSmallBuffers(t *testing.T) {
	v, r := gemvWith(t, "scaled split-K gemv variant", func(v *table.Variant) bool {
		return v.Param("layout") == "splitk" && strings.HasPrefix(v.Param("dtype"), "fp8")
	})
	T, N, K := 1, 100, max(64, v.IntParam("splits")*v.IntParam("wg"))*v.IntParam("pack")
	l, err := Plan(v, r.dev, Op{M: T, N: N, K: K})
	if err != nil {
		t.Fatal(err)
	}
	size := func(name string) int { return l.Buffer(name).Size }
	for _, b := range []struct {
		name string
		set  func(c *fakeCall, n int)
		need int
	}{
		{"W", func(c *fakeCall, n int) { c.w = n }, size("W")},
		{"X", func(c *fakeCall, n int) { c.x = n }, size("X")},
		{"scale", func(c *fakeCall, n int) { c.scale = n }, size("scale")},
		{"Y", func(c *fakeCall, n int) { c.y = n }, size("Y")},
		{"partial", func(c *fakeCall, n int) { c.part = n }, size("partial")},
		{"counter", func(c *fakeCall, n int) { c.counter = n }, size("counter")},
	} {
		if b.need <= 0 {
			t.Fatalf("buffer %s: the plan needs %d bytes", b.name, b.need)
		}
		c := call(T, N, K)
		b.set(&c, b.need-1)
		expectRefusal(t, r, v, c, "buffer "+b.name+" holds")
		c = call(T, N, K)
		b.set(&c, 0)
		expectRefusal(t, r, v, c, "buffer "+b.name+" holds 0 bytes")
	}
	if size("W") != N*K*1 || size("X") != T*K*2 || size("scale") != 4*N || size("Y") != 4*T*N {
		t.Errorf("plan sizes %+v for T=%d N=%d K=%d of %s", l, T, N, K, v.Name)
	}
	if err := r.run(v, call(T, N, K)); err != nil {
		t.Fatal(err)
	}
}

// TestRefuseMisalignedOffsets: offsets that are not multiples of pack are
// refused, and Select's align rule agrees with CheckOffsets.
func TestRefuseMisalignedOffsets(t *testing.T) {
	v, r := gemvWith(t, "gemv variant with pack >= 4", func(v *table.Variant) bool { return v.IntParam("pack") >= 4 })
	pack := v.IntParam("pack")
	c := call(1, 64, 64*pack)
	c.wOff = pack + 1
	expectRefusal(t, r, v, c, "W offset of")
	c.wOff, c.xOff = 3*pack, pack/2
	expectRefusal(t, r, v, c, "X offset of")
	c.wOff, c.xOff = -pack, 0
	expectRefusal(t, r, v, c, "negative offset")
	c.wOff, c.xOff = 5*pack, 2*pack
	if err := r.run(v, c); err != nil {
		t.Fatal(err)
	}

	// For GEMV variants and offsets up to 32: CheckOffsets accepts the
	// offsets exactly when the spec's eligibility rules that name align
	// hold for Op.Align = AlignOf(offsets).
	checked := 0
	for i := range generated.Variants {
		v := &generated.Variants[i]
		// a sample of gemv (enough, and fast), and mmvq's tensor-core tiles
		// (the mms ones align X)
		sample := v.Family == "gemv" && i%20 == 0 || v.Family == "mmvq" && v.Param("layout") == "mma"
		if !sample {
			continue
		}
		fam, err := familyRules(v.Family)
		if err != nil {
			t.Fatal(err)
		}
		rules, err := rulesFor(fam, v.Arch)
		if err != nil {
			t.Fatal(err)
		}
		dev, _ := ArchDevice(v.Arch)
		for w := 0; w <= 32; w += 3 {
			for x := 0; x <= 32; x += 2 {
				env := Env(Op{Family: v.Family, Dtype: v.Param("dtype"), Align: AlignOf(w, x)}, dev, v)
				eligible := true
				for _, r := range rules.eligible {
					if namesOnly(r.e.Names(), "align") {
						ok, err := r.e.Bool(env)
						eligible = eligible && ok && err == nil
					}
				}
				if got := CheckOffsets(v, map[string]int{"W": w, "X": x}) == nil; got != eligible {
					t.Fatalf("%s offsets W %d X %d: CheckOffsets accepts=%v, Select's align rules=%v", v.Key(), w, x, got, eligible)
				}
				checked++
			}
		}
	}
	if checked == 0 {
		t.Fatal("no gemv variant checked")
	}
	// What Select picks for an alignment takes every offset of that alignment.
	for _, a := range generated.Archs {
		dev, _ := ArchDevice(a.Name)
		for _, align := range []int{0, 1, 2, 4, 8, 16} {
			ch, err := SelectWith(dev, Op{Family: "gemv", Dtype: "f32", M: 1, N: 4096, K: 4096, Align: align}, nil)
			if err != nil {
				continue
			}
			step := align
			if step == 0 {
				step = 1 << 20
			}
			for i := 0; i < 4; i++ {
				if err := CheckOffsets(ch.Variant, map[string]int{"W": i * step, "X": (3 - i) * step}); err != nil {
					t.Errorf("%s picked %s for align %d, which refuses offsets %d, %d: %v", a.Name, ch.Variant.Name, align, i*step, (3-i)*step, err)
				}
			}
		}
	}
}

// TestRefuseDeviceLimits: a device with subgroups under 8 lanes, or a
// workgroup maximum below the variant's workgroup: Select excludes, the
// launch plan refuses.
func TestRefuseDeviceLimits(t *testing.T) {
	v := findVariant(t, "vulkan gemv variant", func(v *table.Variant) bool { return v.Family == "gemv" && v.Backend == "vulkan" })
	dev, err := ArchDevice(v.Arch)
	if err != nil {
		t.Fatal(err)
	}
	pack := v.IntParam("pack")
	// A shape every variant's own rules accept, so that only the device
	// limits exclude.
	op := Op{Family: "gemv", Dtype: v.Param("dtype"), M: 1, N: 4096, K: 1 << 16}

	small := dev
	small.Wave, small.MinSubgroup = 4, 4
	_, err = SelectWith(small, op, nil)
	var nv *NoVariantError
	if !errors.As(err, &nv) || len(nv.Candidates) == 0 {
		t.Fatalf("Select on subgroups of 4: %v, want a NoVariantError listing the excluded", err)
	}
	for _, c := range nv.Candidates {
		if !strings.Contains(c.Excluded, "subgroups of 4 lanes") {
			t.Fatalf("%s excluded for %q", c.Variant.Name, c.Excluded)
		}
	}
	expectRefusal(t, &fakeRunner{dev: small}, v, call(1, 64, 64*pack), "subgroups of 4 lanes; the kernels need at least 8")

	// Workgroup maximum: a variant wider than the device refuses, and
	// Select picks nothing wider.
	wide := findVariant(t, "gemv variant of 256+ lanes", func(x *table.Variant) bool {
		return x.Family == "gemv" && x.Backend == "vulkan" && x.IntParam("wg") >= 256
	})
	narrow := dev
	narrow.MaxWorkgroup = 128
	expectRefusal(t, &fakeRunner{dev: narrow}, wide, call(1, 64, 64*wide.IntParam("pack")), "exceeds the device's 128")
	ch, err := SelectWith(narrow, op, nil)
	if err == nil {
		if wg := WorkgroupSize(ch.Variant, narrow); wg > 128 {
			t.Errorf("Select picked %s with a workgroup of %d on a device of at most 128", ch.Variant.Name, wg)
		}
	} else if !errors.As(err, &nv) {
		t.Fatalf("Select: %v", err)
	}
	if err := CheckDevice(wide, dev); err != nil {
		t.Errorf("the class's own device refuses %s: %v", wide.Name, err)
	}
}

// TestRefuseHashMismatch: a blob whose bytes differ from the table's hash
// is refused before it reaches a driver, and a runner launches nothing.
func TestRefuseHashMismatch(t *testing.T) {
	v := findVariant(t, "vulkan gemv variant", func(v *table.Variant) bool { return v.Family == "gemv" && v.Backend == "vulkan" })
	good, err := SPIRV(v)
	if err != nil {
		t.Fatal(err)
	}
	saved := Blobs
	defer func() { Blobs = saved }()
	cases := map[string][]byte{
		"flipped":   append(append([]byte{}, good[:len(good)/2]...), append([]byte{good[len(good)/2] ^ 1}, good[len(good)/2+1:]...)...),
		"truncated": good[:len(good)-4],
		"empty":     {},
		"appended":  append(append([]byte{}, good...), 0),
	}
	for name, b := range cases {
		Blobs = fstest.MapFS{v.Artifact.Path: {Data: b}}
		if _, err := SPIRV(v); !errors.Is(err, ErrHash) {
			t.Errorf("%s blob: %v, want ErrHash", name, err)
		} else {
			var he *HashError
			if !errors.As(err, &he) || he.Artifact != v.Artifact.Path || he.Want != v.Artifact.SHA256 || he.Have == v.Artifact.SHA256 {
				t.Errorf("%s blob: %#v", name, he)
			}
		}
		dev, _ := ArchDevice(v.Arch)
		r := &fakeRunner{dev: dev}
		if err := r.run(v, call(1, 64, 64*v.IntParam("pack"))); !errors.Is(err, ErrHash) || r.launched != 0 {
			t.Errorf("%s blob: runner returned %v and launched %d", name, err, r.launched)
		}
	}
	Blobs = fstest.MapFS{}
	if _, err := SPIRV(v); err == nil || !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing blob: %v", err)
	}
	Blobs = saved
	if _, err := SPIRV(v); err != nil {
		t.Errorf("the real blob: %v", err)
	}
}

// namesOnly reports whether names include must and none of the op's
// shape (m, n, k), which offsets alone do not give.
func namesOnly(names []string, must string) bool {
	found := false
	for _, n := range names {
		switch n {
		case must:
			found = true
		case "m", "n", "k":
			return false
		}
	}
	return found
}

// TestXshareNeedsSmallSubgroups: the nvidia class picks an xshare tile for
// Q4_K at 4 tokens; on a device of that class whose subgroups are wider
// than the 32-lane groups the tile sums within, Select picks another.
func TestXshareNeedsSmallSubgroups(t *testing.T) {
	dev, err := ArchDevice("nvidia")
	if err != nil {
		t.Fatal(err)
	}
	op := Op{Family: "mmvq", Dtype: "q4_k", M: 4, N: 4096, K: 14336}
	c, err := Select(dev, op)
	if err != nil {
		t.Fatal(err)
	}
	if c.Variant.Param("layout") != "xshare" {
		t.Fatalf("subgroup 32: picked %s, want an xshare tile (the class's keys)", c.Variant.Name)
	}
	wide := dev
	wide.Wave = 64
	c, err = Select(wide, op)
	if err != nil {
		t.Fatal(err)
	}
	if c.Variant.Param("layout") == "xshare" {
		t.Fatalf("subgroup 64: picked %s, an xshare tile", c.Variant.Name)
	}
}

package runtime

import (
	"errors"
	"testing"

	"github.com/kgen-dev/kgen/runtime/table"

	"github.com/kgen-dev/kgen/generated"
)

// FuzzSelect selects over the real table for random ops and devices. Every
// answer is checked against the rules it claims to apply:
//
//   - a chosen variant is of the op's family and dtype and the device's
//     backend and arch; it passes every outside and eligibility rule and
//     the device limits; no eligible candidate has lower preference keys;
//     every pick plans (Plan) for the op's shape and accepts buffer
//     offsets of the op's alignment (CheckOffsets);
//   - every excluded candidate fails a rule or a device limit;
//   - a negative align is an InvalidOpError, and nothing else is; "not
//     eligible" means an outside rule fails; "no variant" means every
//     candidate was excluded; no other error.
func FuzzSelect(f *testing.F) {
	f.Add(uint8(0), uint8(0), uint8(0), int64(1), int64(4096), int64(4096), int64(0), uint8(1), uint16(0))
	f.Add(uint8(3), uint8(0), uint8(2), int64(4), int64(151936), int64(1024), int64(8), uint8(2), uint16(1024))
	f.Add(uint8(5), uint8(1), uint8(1), int64(8), int64(7), int64(256), int64(3), uint8(0), uint16(64))
	f.Add(uint8(7), uint8(2), uint8(0), int64(2), int64(1), int64(512), int64(16), uint8(5), uint16(128))
	f.Add(uint8(1), uint8(0), uint8(4), int64(9), int64(-1), int64(0), int64(-4), uint8(3), uint16(256))
	f.Fuzz(func(t *testing.T, archI, famI, dtypeI uint8, m, n, k, align int64, wave uint8, maxWG uint16) {
		if len(generated.Archs) == 0 || len(generated.Families) == 0 || len(generated.Dtypes) == 0 {
			t.Skip("empty table")
		}
		a := generated.Archs[int(archI)%len(generated.Archs)]
		dev, err := ArchDevice(a.Name)
		if err != nil {
			t.Fatal(err)
		}
		if dev.Backend == "vulkan" {
			// A Vulkan device's subgroup is its own, not the class's.
			dev.Wave = []int{4, 8, 16, 32, 64, 128}[int(wave)%6]
			dev.MinSubgroup = dev.Wave
		}
		dev.MaxWorkgroup = []int{0, 64, 128, 256, 512, 1024}[int(maxWG)%6]
		fam := generated.Families[int(famI)%len(generated.Families)]
		op := Op{Family: fam.Name, Dtype: generated.Dtypes[int(dtypeI)%len(generated.Dtypes)].Name,
			M: int(m % 16), N: int(n % (1 << 33)), K: int(k % (1 << 33)), Align: int(align % (1 << 21))}
		checkSelect(t, dev, op)
	})
}

func checkSelect(t *testing.T, dev Device, op Op) {
	fam, err := familyRules(op.Family)
	if err != nil {
		t.Fatal(err)
	}
	rules, err := rulesFor(fam, dev.Arch)
	if err != nil {
		t.Fatal(err)
	}
	ch, err := SelectWith(dev, op, nil)
	var ne *NotEligibleError
	var nv *NoVariantError
	var ie *InvalidOpError
	if invalid := errors.As(err, &ie) && errors.Is(err, ErrInvalidOp); invalid != (op.Align < 0) {
		t.Fatalf("%s on %s: align %d, Select returned %T %v; want an InvalidOpError exactly for a negative align", op, dev.Arch, op.Align, err, err)
	}
	switch {
	case ie != nil:
		return
	case errors.As(err, &ne):
		env := Env(op, dev, nil)
		for _, r := range rules.outside {
			if ok, err := r.e.Bool(env); err != nil || !ok {
				return
			}
		}
		t.Fatalf("%s on %s: not eligible (%v) but every outside rule holds", op, dev.Arch, err)
	case errors.As(err, &nv):
		for _, c := range nv.Candidates {
			if c.Excluded == "" {
				t.Fatalf("%s on %s: no variant, but %s was not excluded", op, dev.Arch, c.Variant.Name)
			}
			checkExcluded(t, rules, dev, op, c)
		}
		return
	case err != nil:
		t.Fatalf("%s on %s: %T %v", op, dev.Arch, err, err)
	}
	v := ch.Variant
	if v.Family != op.Family || v.Param("dtype") != op.Dtype || v.Arch != dev.Arch || v.Backend != dev.Backend {
		t.Fatalf("%s on %s/%s: picked %s (%s %s %s/%s)", op, dev.Backend, dev.Arch, v.Name, v.Family, v.Param("dtype"), v.Backend, v.Arch)
	}
	env := Env(op, dev, v)
	for _, list := range [][]parsedRule{rules.outside, rules.eligible} {
		for _, r := range list {
			if ok, err := r.e.Bool(env); err != nil || !ok {
				t.Fatalf("%s on %s: picked %s, which fails %q (%v)", op, dev.Arch, v.Name, r.e.Src, err)
			}
		}
	}
	if reason := deviceLimits(v, dev); reason != "" {
		t.Fatalf("%s on %s: picked %s, which the device cannot run: %s", op, dev.Arch, v.Name, reason)
	}
	win := make([]int64, len(rules.prefer))
	if err := preferKeys(newEnv(op, dev, v), rules, win); err != nil {
		t.Fatal(err)
	}
	for _, c := range ch.Candidates {
		if c.Excluded != "" {
			checkExcluded(t, rules, dev, op, c)
			continue
		}
		if less(c.Keys, c.Variant.Name, win, v.Name) {
			t.Fatalf("%s on %s: picked %s (keys %v), but %s has keys %v", op, dev.Arch, v.Name, win, c.Variant.Name, c.Keys)
		}
	}
	// Every pick plans for the op's shape (the same rules decide both),
	// and accepts buffer offsets of the op's alignment.
	if _, err := Plan(v, dev, op); err != nil {
		t.Fatalf("%s on %s: picked %s, which refuses the shape: %v", op, dev.Arch, v.Name, err)
	}
	step := op.Align
	if step <= 0 {
		step = 1 << 20
	}
	offsets := map[string]int{}
	for i, b := range mustContract(t, v.Family).Launch.Buffers {
		if b.Align != "" {
			offsets[b.Name] = (i + 1) * step
		}
	}
	if err := CheckOffsets(v, offsets); err != nil {
		t.Fatalf("%s on %s: picked %s, which refuses offsets %v of the op's alignment: %v", op, dev.Arch, v.Name, offsets, err)
	}
}

func mustContract(t testing.TB, family string) *table.Family {
	f, err := Contract(family)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// checkExcluded re-derives why c was excluded.
func checkExcluded(t *testing.T, rules *compiled, dev Device, op Op, c Candidate) {
	env := Env(op, dev, c.Variant)
	for _, r := range rules.eligible {
		if ok, err := r.e.Bool(env); err != nil || !ok {
			return
		}
	}
	if deviceLimits(c.Variant, dev) != "" {
		return
	}
	t.Fatalf("%s on %s: %s excluded (%s) but passes every rule and limit", op, dev.Arch, c.Variant.Name, c.Excluded)
}

// less orders candidates as Select does: keys, then name.
func less(a []int64, an string, b []int64, bn string) bool {
	for i := range a {
		if i < len(b) && a[i] != b[i] {
			return a[i] < b[i]
		}
	}
	return an < bn
}

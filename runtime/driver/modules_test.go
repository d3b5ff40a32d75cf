package driver_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/kgen-dev/kgen/generated"
	"github.com/kgen-dev/kgen/runtime/driver"
	"github.com/kgen-dev/kgen/runtime/table"
	"github.com/kgen-dev/kgen/runtime/verify"
)

func TestModulesLookup(t *testing.T) {
	ctx, err := driver.OpenFake(driver.CUDA, 32, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ctx.Close()
	mods, err := ctx.LoadModules(driver.Image{Name: "part1.cubin", Data: []byte("a b")}, driver.Image{Name: "part2.cubin", Data: []byte("c")})
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"a", "b", "c"} {
		if f, err := mods.Function(k); err != nil || f.Name() != k {
			t.Errorf("Function(%s): %v", k, err)
		}
		if ok, err := mods.Has(k); !ok || err != nil {
			t.Errorf("Has(%s) = %v, %v", k, ok, err)
		}
	}
	_, err = mods.Function("zz")
	if !errors.Is(err, driver.ErrNotFound) || !strings.Contains(err.Error(), `kernel "zz": cuModuleGetFunction: drv:CUDA_ERROR_NOT_FOUND (500)`) ||
		!strings.Contains(err.Error(), "part1.cubin, part2.cubin") {
		t.Errorf("missing kernel: %v", err)
	}
	if ok, err := mods.Has("zz"); ok || err != nil {
		t.Errorf("Has(zz) = %v, %v", ok, err)
	}
	if got := strings.Join(mods.Names(), " "); got != "part1.cubin part2.cubin" {
		t.Errorf("Names: %s", got)
	}
	if err := mods.Unload(); err != nil {
		t.Fatal(err)
	}

	// One kernel in two modules names both.
	dup, err := ctx.LoadModules(driver.Image{Name: "x.cubin", Data: []byte("a b")}, driver.Image{Name: "y.cubin", Data: []byte("b c")})
	if err != nil {
		t.Fatal(err)
	}
	defer dup.Unload()
	for _, check := range []func() error{
		func() error { _, err := dup.Function("b"); return err },
		func() error { _, err := dup.Has("b"); return err },
	} {
		if err := check(); err == nil || !strings.Contains(err.Error(), `kernel "b" is in two modules, x.cubin and y.cubin`) {
			t.Errorf("duplicate kernel: %v", err)
		}
	}
	if _, err := dup.Function("c"); err != nil {
		t.Error(err)
	}

	// A module that does not load is named.
	if _, err := ctx.LoadModules(driver.Image{Name: "ok.cubin", Data: []byte("a")}, driver.Image{Name: "broken.cubin", Data: []byte("bad")}); err == nil ||
		!strings.HasPrefix(err.Error(), "broken.cubin: ") {
		t.Errorf("bad image: %v", err)
	}
	if _, err := ctx.LoadModules(); err == nil {
		t.Error("no image loaded without error")
	}
}

// TestDriverRunnerModules verifies GEMV kernels split over two modules and
// checks which families Present finds in a set of modules.
func TestDriverRunnerModules(t *testing.T) {
	vs := pick("gfx1100")
	defs := map[string]driver.FakeKernelDef{}
	var names []string
	for _, v := range vs {
		defs[v.Name] = driver.FakeKernelDef{Args: 9, Run: emulate(t, v, 32, false)}
		names = append(names, v.Name)
	}
	var quant *table.Variant
	for i, v := range generated.Variants {
		if v.Backend == "hip" && v.Arch == "gfx1100" && v.Family == "quant_q8k" {
			quant = &generated.Variants[i]
			break
		}
	}
	ctx, err := driver.OpenFake(driver.CUDA, 32, defs)
	if err != nil {
		t.Fatal(err)
	}
	defer ctx.Close()
	half := len(names) / 2
	r, err := verify.NewDriverRunner(ctx, "gfx1100",
		driver.Image{Name: "gemv_a.cubin", Data: []byte(strings.Join(names[:half], " "))},
		driver.Image{Name: "gemv_b.cubin", Data: []byte(strings.Join(names[half:], " "))},
		driver.Image{Name: "q8k.cubin", Data: []byte(quant.Name)})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	rep, err := verify.Run(r, vs, verify.Options{Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Failed != 0 || rep.Verified != len(vs) {
		t.Fatalf("%s\n%s", rep.Summary(), rep.FailureLines())
	}

	present, families, err := r.Present(generated.Variants)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(families, ",") != "gemv,quant_q8k" {
		t.Errorf("families %v, want gemv and quant_q8k", families)
	}
	count := map[string]int{}
	for _, v := range present {
		if v.Backend != "hip" || v.Arch != "gfx1100" {
			t.Fatalf("Present returned %s", v.Key())
		}
		count[v.Family]++
	}
	for _, v := range generated.Variants {
		if v.Backend == "hip" && v.Arch == "gfx1100" && (v.Family == "gemv" || v.Family == "quant_q8k") {
			count[v.Family]--
		}
	}
	if count["gemv"] != 0 || count["quant_q8k"] != 0 || count["quant_q8_1"] != 0 {
		t.Errorf("Present is not every variant of the present families: %v", count)
	}

	// A family's missing kernels fail verification (a forgotten part).
	var missing []table.Variant
	for _, v := range present {
		if v.Family == "gemv" && !strings.Contains(strings.Join(names, " "), v.Name) {
			missing = append(missing, v)
			break
		}
	}
	rep, err = verify.Run(r, missing, verify.Options{Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Failed != 1 || !strings.Contains(rep.FailureLines(), "CUDA_ERROR_NOT_FOUND") || !strings.Contains(rep.FailureLines(), "gemv_a.cubin, gemv_b.cubin, q8k.cubin") {
		t.Errorf("missing kernel: %s\n%s", rep.Summary(), rep.FailureLines())
	}

	// None present: no family.
	r2, err := verify.NewDriverRunner(ctx, "gfx1100", driver.Image{Name: "other.cubin", Data: []byte("unrelated")})
	if err != nil {
		t.Fatal(err)
	}
	defer r2.Close()
	if _, fams, err := r2.Present(generated.Variants); err != nil || len(fams) != 0 {
		t.Errorf("Present on an unrelated module: %v %v", fams, err)
	}
}

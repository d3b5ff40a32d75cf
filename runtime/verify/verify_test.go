package verify

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/kgen-dev/kgen/generated"
	kruntime "github.com/kgen-dev/kgen/runtime"
	"github.com/kgen-dev/kgen/runtime/internal/vktest"
	"github.com/kgen-dev/kgen/runtime/ref"
	"github.com/kgen-dev/kgen/runtime/table"
	"github.com/kgen-dev/kgen/runtime/vulkan"
)

func openLavapipe(t *testing.T) *VulkanRunner {
	t.Helper()
	if os.Getenv("VK_DRIVER_FILES") == "" {
		if _, err := os.Stat(vktest.LavapipeICD); err != nil {
			t.Fatalf("lavapipe is needed: apt-get install mesa-vulkan-drivers libvulkan1 (%v)", err)
		}
		t.Setenv("VK_DRIVER_FILES", vktest.LavapipeICD)
	}
	inst, err := vulkan.Open()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(inst.Close)
	d, err := inst.OpenDevice(0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(d.Close)
	r, err := NewVulkanRunner(d)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.Close)
	return r
}

// TestEverySPIRVVariant runs every SPIR-V variant of the table on the local
// Vulkan device (lavapipe in CI) against the reference.
func TestEverySPIRVVariant(t *testing.T) {
	r := openLavapipe(t)
	want := 0
	for i := range generated.Variants {
		if generated.Variants[i].Backend == "vulkan" {
			want++
		}
	}
	o := Options{Filter: Filter{Backend: "vulkan"}}
	if testing.Short() {
		o.Filter.Arch = "llvmpipe"
		want = 0
		for i := range generated.Variants {
			if v := &generated.Variants[i]; v.Backend == "vulkan" && v.Arch == "llvmpipe" {
				want++
			}
		}
	}
	rep, err := Run(r, generated.Variants, o)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range rep.Failures {
		t.Error(f)
	}
	// Lavapipe has no cooperative matrices: the coopmat tiles are the only
	// variants it may skip, each named with its reason; any other skip fails.
	coopmat := 0
	for i := range generated.Variants {
		if v := &generated.Variants[i]; o.Filter.Match(v) && slices.ContainsFunc(v.Params, func(p table.Param) bool { return p.N == "layout" && p.S == "coopmat" }) {
			coopmat++
		}
	}
	lacksCoopmat := 0
	for _, s := range rep.Skipped {
		if strings.HasSuffix(s, "its SPIR-V needs cooperativeMatrix, which the device lacks") {
			lacksCoopmat++
			t.Log("cannot run on this device: " + s)
			continue
		}
		t.Error("skipped: " + s)
	}
	if lacksCoopmat != coopmat {
		t.Errorf("%d variants skipped for lacking cooperativeMatrix; the table has %d coopmat variants", lacksCoopmat, coopmat)
	}
	want -= lacksCoopmat
	if rep.Verified != want || rep.Passed != want {
		t.Fatalf("verified %d, passed %d; the table has %d SPIR-V variants", rep.Verified, rep.Passed, want)
	}
	exact := 0
	for i := range generated.Variants {
		if v := &generated.Variants[i]; o.Filter.Match(v) {
			fam, err := kruntime.Contract(v.Family)
			if err != nil {
				t.Fatal(err)
			}
			if fam.Verify.Compare == "exact" {
				exact++
			}
		}
	}
	if exact == 0 || rep.ExactVariants != exact || rep.ExactBlocks == 0 {
		t.Fatalf("%d variants compared byte for byte (%d blocks); the table has %d with exact compares", rep.ExactVariants, rep.ExactBlocks, exact)
	}
	t.Logf("%s (%d shape runs, seed %d, %s)", rep.Summary(), rep.Shapes, rep.Seed, rep.Elapsed.Round(1e6))
}

// TestAlteredBlobRefused: a truncated or altered .spv never reaches the driver.
func TestAlteredBlobRefused(t *testing.T) {
	r := openLavapipe(t)
	var v *table.Variant
	for i := range generated.Variants {
		if generated.Variants[i].Backend == "vulkan" {
			v = &generated.Variants[i]
			break
		}
	}
	ops, err := kruntime.VerifyCases(v, r.Device())
	if err != nil {
		t.Fatal(err)
	}
	l, err := kruntime.Plan(v, r.Device(), ops[0])
	if err != nil {
		t.Fatal(err)
	}
	inputs := map[string][]byte{}
	for _, b := range l.Buffers {
		inputs[b.Name] = make([]byte, b.Size)
	}
	orig, err := kruntime.SPIRV(v)
	if err != nil {
		t.Fatal(err)
	}
	altered := append([]byte{}, orig...)
	altered[len(altered)/2] ^= 1
	t.Cleanup(func() { kruntime.Blobs = generated.SPIRV })
	for name, b := range map[string][]byte{"truncated": orig[:len(orig)-4], "altered": altered} {
		kruntime.Blobs = fstest.MapFS{v.Artifact.Path: {Data: b}}
		r.pipe = map[string]*vulkan.Pipeline{}
		_, err := r.Run(l, inputs, 0, 0)
		if !errors.Is(err, kruntime.ErrHash) {
			t.Errorf("%s blob: got %v, want a hash refusal", name, err)
		}
	}
}

// TestUnregisteredReference: a variant whose family's contract names a
// reference runtime/ref does not register fails verification, with the
// reason; it is not skipped.
func TestUnregisteredReference(t *testing.T) {
	r := openLavapipe(t)
	var vs []table.Variant
	for _, v := range generated.Variants {
		if v.Backend == "vulkan" && v.Arch == r.Device().Arch && len(vs) < 2 {
			vs = append(vs, v)
		}
	}
	lookup = func(string) (ref.Reference, bool) { return nil, false }
	t.Cleanup(func() { lookup = ref.Lookup })
	rep, err := Run(r, vs, Options{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Verified != len(vs) || rep.Failed != len(vs) || rep.Passed != 0 || len(rep.Skipped) != 0 || rep.Shapes != 0 {
		t.Fatalf("%s, %d skipped, %d case runs; want every variant failed before running", rep.Summary(), len(rep.Skipped), rep.Shapes)
	}
	if lines := rep.FailureLines(); !strings.Contains(lines, "which runtime/ref does not register (registered: ") {
		t.Fatalf("failure does not name the missing reference:\n%s", lines)
	}
}

// TestNoFamilyNames: the verification path serves every family through its
// contract; no family is named in runtime/verify's code.
func TestNoFamilyNames(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, lit := range []string{`"gemv"`, `"quant_q8`, "IsQuant"} {
			if strings.Contains(string(b), lit) {
				t.Errorf("%s names a family: %s", f, lit)
			}
		}
	}
}

package verify

import (
	"errors"
	"os"
	"testing"
	"testing/fstest"

	"github.com/kgen-dev/kgen/generated"
	kruntime "github.com/kgen-dev/kgen/runtime"
	"github.com/kgen-dev/kgen/runtime/table"
	"github.com/kgen-dev/kgen/runtime/vulkan"
)

const lavapipeICD = "/usr/share/vulkan/icd.d/lvp_icd.x86_64.json"

func openLavapipe(t *testing.T) *VulkanRunner {
	t.Helper()
	if os.Getenv("VK_DRIVER_FILES") == "" {
		if _, err := os.Stat(lavapipeICD); err != nil {
			t.Fatalf("lavapipe is needed: apt-get install mesa-vulkan-drivers libvulkan1 (%v)", err)
		}
		t.Setenv("VK_DRIVER_FILES", lavapipeICD)
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
	for _, s := range rep.Skipped {
		t.Error("skipped: " + s)
	}
	if rep.Verified != want || rep.Passed != want {
		t.Fatalf("verified %d, passed %d; the table has %d SPIR-V variants", rep.Verified, rep.Passed, want)
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
	orig, err := kruntime.SPIRV(v)
	if err != nil {
		t.Fatal(err)
	}
	altered := append([]byte{}, orig...)
	altered[len(altered)/2] ^= 1
	for name, b := range map[string][]byte{"truncated": orig[:len(orig)-4], "altered": altered} {
		kruntime.Blobs = fstest.MapFS{v.Artifact: {Data: b}}
		r.pipe = map[string]*vulkan.Pipeline{}
		_, err := r.RunGEMV(v, Shape{1, 1, 8}, make([]byte, 64), make([]byte, 64), make([]byte, 64))
		if !errors.Is(err, kruntime.ErrHash) {
			t.Errorf("%s blob: got %v, want a hash refusal", name, err)
		}
	}
	kruntime.Blobs = generated.SPIRV
}

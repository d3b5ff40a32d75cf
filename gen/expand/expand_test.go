package expand

import (
	"strings"
	"testing"
	"testing/fstest"

	"github.com/kgen-dev/kgen/gen/spec"
	"github.com/kgen-dev/kgen/templates"
)

// small is a spec with one HIP and one Vulkan arch and a family whose
// constraint removes some combinations.
func small(t *testing.T, kernels string) *spec.Spec {
	t.Helper()
	tmpl, err := templates.FS.ReadFile("gemv/gemv.hip.tmpl")
	if err != nil {
		t.Fatal(err)
	}
	comp, _ := templates.FS.ReadFile("gemv/gemv.comp.tmpl")
	fsys := fstest.MapFS{
		"kernels.yaml":        {Data: []byte(kernels)},
		"gemv/gemv.hip.tmpl":  {Data: tmpl},
		"gemv/gemv.comp.tmpl": {Data: comp},
		"archs/gfxa.yaml":     {Data: []byte("arch: gfxa\nbackend: hip\nwave: 32\ncompute_units: 8\nshared_memory: 65536\ndtypes: [f32, bf16]\n")},
		"archs/vk.yaml":       {Data: []byte("arch: vk\nbackend: vulkan\nwave: 8\ncompute_units: 2\nshared_memory: 32768\ndtypes: [bf16]\nmatch: {vendor_id: 1}\nemit:\n  gemv:\n    pack: [2, 8]\n")},
	}
	s, err := spec.Load(fsys, "templates")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

const kernels = `dtypes:
  f32:  {weight: f32,  act: f32,  weight_bytes: 4, act_bytes: 4}
  bf16: {weight: bf16, act: bf16, weight_bytes: 2, act_bytes: 2}
families:
  gemv:
    templates: {hip: gemv/gemv.hip.tmpl, vulkan: gemv/gemv.comp.tmpl}
    axes:
      - {name: dtype, values: [f32, bf16]}
      - {name: pack, prefix: p, values: [2, 8]}
      - {name: tile, values: [wg64, sk4], derive: {wg64: {layout: workgroup, wg: 64, splits: 1}, sk4: {layout: splitk, wg: 256, splits: 4}}}
    constraints:
      - {rule: "pack * bytes(dtype) <= 16", why: "16-byte loads at most"}
    vulkan: {baked: [dtype, pack, layout], specialization: {wg: 2, splits: 3}}
    launch: {workgroup: {value: wg, param: wg}, grid: ["1", "1", "1"], buffers: [{name: Y, dir: out, elem: f32, bytes: "4"}]}
    verify: {reference: gemv, compare: {mode: exact}, cases: [{m: "1", n: "1", k: "1"}]}
`

func TestExpand(t *testing.T) {
	s := small(t, kernels)
	vs, err := Expand(s)
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, v := range vs {
		keys = append(keys, v.Key())
	}
	// f32 p8 is 32 bytes: filtered out; the vulkan class emits bf16 only.
	want := []string{
		"hip/gfxa/gemv_bf16_p2_sk4", "hip/gfxa/gemv_bf16_p2_wg64", "hip/gfxa/gemv_bf16_p8_sk4", "hip/gfxa/gemv_bf16_p8_wg64",
		"hip/gfxa/gemv_f32_p2_sk4", "hip/gfxa/gemv_f32_p2_wg64",
		"vulkan/vk/gemv_bf16_p2_sk4", "vulkan/vk/gemv_bf16_p2_wg64", "vulkan/vk/gemv_bf16_p8_sk4", "vulkan/vk/gemv_bf16_p8_wg64",
	}
	if got := strings.Join(keys, "\n"); got != strings.Join(want, "\n") {
		t.Fatalf("variants:\n%s\nwant:\n%s", got, strings.Join(want, "\n"))
	}
	for _, v := range vs {
		if v.Arch.Backend != "vulkan" {
			if v.Blob != "" || len(v.Spec) != 0 {
				t.Errorf("%s: HIP variant with blob %q spec %v", v.Key(), v.Blob, v.Spec)
			}
			continue
		}
		// Blobs are named by the baked parameters only; wg and splits are
		// specialization constants in id order.
		wantBlob := "gemv_" + v.Params["dtype"] + "_p" + v.Params["pack"] + "_" + v.Params["layout"]
		if v.Blob != wantBlob || len(v.Spec) != 2 || v.Spec[0].ID != 2 || v.Spec[1].Param != "splits" {
			t.Errorf("%s: blob %q spec %+v", v.Key(), v.Blob, v.Spec)
		}
	}
}

func TestExpandNoVariants(t *testing.T) {
	s := small(t, strings.Replace(kernels, `"pack * bytes(dtype) <= 16"`, `"pack > 100"`, 1))
	_, err := Expand(s)
	if err == nil || !strings.Contains(err.Error(), "has no variants") {
		t.Fatalf("got %v, want a no-variants error", err)
	}
}

// An axis's unnamed value is left out of variant and blob names; a value
// not on the axis is a spec error.
func TestExpandUnnamed(t *testing.T) {
	s := small(t, strings.Replace(kernels, `values: [2, 8]}`, `values: [2, 8], unnamed: 2}`, 1))
	vs, err := Expand(s)
	if err != nil {
		t.Fatal(err)
	}
	var keys, blobs []string
	for _, v := range vs {
		keys = append(keys, v.Key())
		if v.Blob != "" {
			blobs = append(blobs, v.Blob)
		}
	}
	want := []string{
		"hip/gfxa/gemv_bf16_p8_sk4", "hip/gfxa/gemv_bf16_p8_wg64", "hip/gfxa/gemv_bf16_sk4", "hip/gfxa/gemv_bf16_wg64",
		"hip/gfxa/gemv_f32_sk4", "hip/gfxa/gemv_f32_wg64",
		"vulkan/vk/gemv_bf16_p8_sk4", "vulkan/vk/gemv_bf16_p8_wg64", "vulkan/vk/gemv_bf16_sk4", "vulkan/vk/gemv_bf16_wg64",
	}
	if got := strings.Join(keys, "\n"); got != strings.Join(want, "\n") {
		t.Fatalf("variants:\n%s\nwant:\n%s", got, strings.Join(want, "\n"))
	}
	wantBlobs := "gemv_bf16_p8_splitk gemv_bf16_p8_workgroup gemv_bf16_splitk gemv_bf16_workgroup"
	if got := strings.Join(blobs, " "); got != wantBlobs {
		t.Fatalf("blobs %s, want %s", got, wantBlobs)
	}
	for _, v := range vs {
		if v.Params["pack"] == "" {
			t.Errorf("%s: the unnamed axis lost its parameter", v.Key())
		}
	}
	bad := strings.Replace(kernels, `values: [2, 8]}`, `values: [2, 8], unnamed: 4}`, 1)
	fsys := fstest.MapFS{"kernels.yaml": {Data: []byte(bad)}}
	for _, p := range []string{"gemv/gemv.hip.tmpl", "gemv/gemv.comp.tmpl"} {
		b, _ := templates.FS.ReadFile(p)
		fsys[p] = &fstest.MapFile{Data: b}
	}
	fsys["archs/gfxa.yaml"] = &fstest.MapFile{Data: []byte("arch: gfxa\nbackend: hip\nwave: 32\ncompute_units: 8\nshared_memory: 65536\ndtypes: [f32, bf16]\n")}
	if _, err := spec.Load(fsys, "templates"); err == nil || !strings.Contains(err.Error(), "unnamed 4 is not one of its values") {
		t.Fatalf("got %v, want an unnamed-value error", err)
	}
}

package expand

import (
	"io/fs"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/kgen-dev/kgen/gen/spec"
	"github.com/kgen-dev/kgen/templates"
)

// The real spec: tensor-core (mma) tiles exist only for target: cuda archs,
// always 16 rows; GEMV ones pack 8 (fp8: 16) and 16-bit activations, mmvq
// ones (integer MMAs) q4_k weights only; cooperative-matrix (coopmat) tiles
// only for Vulkan classes with coopmat: nv, f16 at pack 8, tokens 4 or
// 8, also 16 rows; no other layout has 16 rows.
func TestMMATilesOnlyForCUDATarget(t *testing.T) {
	s, err := spec.Load(templates.FS, "templates")
	if err != nil {
		t.Fatal(err)
	}
	vs, err := Expand(s)
	if err != nil {
		t.Fatal(err)
	}
	mma, mmvq, cm := 0, 0, 0
	for _, v := range vs {
		isMMA := v.Params["layout"] == "mma"
		if v.Params["layout"] == "coopmat" {
			cm++
			if v.Arch.Coopmat != "nv" || v.Params["rows"] != "16" || v.Params["pack"] != "8" || v.Params["dtype"] != "f16" || (v.Params["tokens"] != "4" && v.Params["tokens"] != "8") {
				t.Errorf("%s: a coopmat tile on arch %s (coopmat %q) with %v", v.Key(), v.Arch.Name, v.Arch.Coopmat, v.Params)
			}
			continue
		}
		if v.Params["rows"] == "16" != isMMA {
			t.Errorf("%s: rows %s with layout %s", v.Key(), v.Params["rows"], v.Params["layout"])
		}
		if !isMMA {
			continue
		}
		mma++
		if v.Arch.Target != "cuda" {
			t.Errorf("%s: an mma tile on arch %s (target %q)", v.Key(), v.Arch.Name, v.Arch.Target)
		}
		if v.Family.Name == "mmvq" {
			mmvq++
			if d, tile := v.Params["dtype"], v.Params["tile"]; d != "q4_k" && (d != "q6_k" || tile != "mma128" && tile != "mma512") {
				t.Errorf("%s: integer mma tiles take q4_k weights, and q6_k as mma128/mma512 only", v.Key())
			}
			continue
		}
		if want := map[bool]string{true: "16", false: "8"}[strings.HasPrefix(v.Params["dtype"], "fp8")]; v.Params["pack"] != want || strings.HasPrefix(v.Params["dtype"], "f32") {
			t.Errorf("%s: mma needs 16-byte weight loads (pack 8; fp8: 16) and 16-bit activations", v.Key())
		}
	}
	if cm != 4 {
		t.Errorf("%d coopmat tiles, want 4 (nvidia: f16 x cm128/cm256 x tokens 4/8)", cm)
	}
	if mma == 0 || mmvq == 0 {
		t.Fatalf("%d mma variants, %d of them mmvq: the sm90 arch should have both families' tiles", mma, mmvq)
	}
}

// An AMD arch listing the mma tiles gets none of them: the constraint on
// target, not the emit list, is what keeps them to NVIDIA.
func TestMMATilesRefusedForAMDTarget(t *testing.T) {
	fsys := fstest.MapFS{}
	err := fsRead(templates.FS, ".", fsys)
	if err != nil {
		t.Fatal(err)
	}
	fsys["archs/gfx1201.yaml"] = &fstest.MapFile{Data: []byte("arch: gfx1201\nbackend: hip\nwave: 32\ncompute_units: 32\nshared_memory: 65536\ndtypes: [bf16, q4_k]\nemit:\n  gemv:\n    tile: [wg64, mma256]\n  mmvq:\n    tile: [wg64, mma128]\n")}
	s, err := spec.Load(fsys, "templates")
	if err != nil {
		t.Fatal(err)
	}
	vs, err := Expand(s)
	if err != nil {
		t.Fatal(err)
	}
	n, nq := 0, 0
	for _, v := range vs {
		if v.Arch.Name != "gfx1201" || v.Family.Name != "gemv" && v.Family.Name != "mmvq" {
			continue
		}
		if v.Family.Name == "mmvq" {
			nq++
		} else {
			n++
		}
		if v.Params["layout"] == "mma" {
			t.Errorf("%s: mma tile emitted for an amdgcn target", v.Key())
		}
	}
	if n == 0 || nq == 0 {
		t.Fatalf("gfx1201 has %d gemv and %d mmvq variants: the test arch is wrong", n, nq)
	}
}

// fsRead copies every regular file of src under dir into dst.
func fsRead(src fs.FS, dir string, dst fstest.MapFS) error {
	return fs.WalkDir(src, dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(src, p)
		if err != nil {
			return err
		}
		dst[p] = &fstest.MapFile{Data: b}
		return nil
	})
}

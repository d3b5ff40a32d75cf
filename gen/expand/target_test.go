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
// always 16 rows, pack 8 and 16-bit activations; no other layout has 16 rows.
func TestMMATilesOnlyForCUDATarget(t *testing.T) {
	s, err := spec.Load(templates.FS, "templates")
	if err != nil {
		t.Fatal(err)
	}
	vs, err := Expand(s)
	if err != nil {
		t.Fatal(err)
	}
	mma := 0
	for _, v := range vs {
		isMMA := v.Params["layout"] == "mma"
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
		if want := map[bool]string{true: "16", false: "8"}[strings.HasPrefix(v.Params["dtype"], "fp8")]; v.Params["pack"] != want || strings.HasPrefix(v.Params["dtype"], "f32") {
			t.Errorf("%s: mma needs 16-byte weight loads (pack 8; fp8: 16) and 16-bit activations", v.Key())
		}
	}
	if mma == 0 {
		t.Fatal("no mma variants at all: the sm90 arch should list them")
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
	fsys["archs/gfx1201.yaml"] = &fstest.MapFile{Data: []byte("arch: gfx1201\nbackend: hip\nwave: 32\ncompute_units: 32\nshared_memory: 65536\ndtypes: [bf16]\nemit:\n  gemv:\n    tile: [wg64, mma256]\n")}
	s, err := spec.Load(fsys, "templates")
	if err != nil {
		t.Fatal(err)
	}
	vs, err := Expand(s)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, v := range vs {
		if v.Arch.Name != "gfx1201" || v.Family.Name != "gemv" {
			continue
		}
		n++
		if v.Params["layout"] == "mma" {
			t.Errorf("%s: mma tile emitted for an amdgcn target", v.Key())
		}
	}
	if n == 0 {
		t.Fatal("gfx1201 has no gemv variants: the test arch is wrong")
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

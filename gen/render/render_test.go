package render

import (
	"bytes"
	"io/fs"
	"os"
	"testing"
	"testing/fstest"

	"github.com/kgen-dev/kgen/gen/expand"
	"github.com/kgen-dev/kgen/gen/spec"
)

// renderTree loads, expands and renders a templates tree.
func renderTree(t *testing.T, fsys fs.FS) map[string]*Source {
	t.Helper()
	s, err := spec.Load(fsys, "templates")
	if err != nil {
		t.Fatal(err)
	}
	vs, err := expand.Expand(s)
	if err != nil {
		t.Fatal(err)
	}
	srcs, err := Render(s, fsys, vs)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*Source{}
	for _, src := range srcs {
		out[src.Path] = src
	}
	return out
}

// TestInputsHashPerArtifact: adding an arch (a HIP one and a Vulkan class)
// leaves the inputs hash of every other source as it was. With one hash of
// all spec files in every entry, each added arch rewrote every line of
// manifest.json (~350 lines per arch: a merge conflict for any two people
// adding archs). Editing an arch's file changes its own sources' entries;
// editing kernels.yaml changes them all.
func TestInputsHashPerArtifact(t *testing.T) {
	base := fstest.MapFS{}
	err := fs.WalkDir(os.DirFS("../../templates"), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(os.DirFS("../../templates"), p)
		base[p] = &fstest.MapFile{Data: b}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	clone := func() fstest.MapFS {
		c := fstest.MapFS{}
		for k, v := range base {
			c[k] = &fstest.MapFile{Data: append([]byte{}, v.Data...)}
		}
		return c
	}
	before := renderTree(t, base)

	added := clone()
	added["archs/gfx1201.yaml"] = &fstest.MapFile{Data: bytes.Replace(base["archs/gfx1200.yaml"].Data, []byte("arch: gfx1200"), []byte("arch: gfx1201"), 1)}
	added["archs/amdvlk.yaml"] = &fstest.MapFile{Data: bytes.Replace(bytes.Replace(base["archs/amd.yaml"].Data,
		[]byte("arch: amd"), []byte("arch: amdvlk"), 1), []byte("match: {vendor_id: 0x1002}"), []byte("match: {vendor_id: 0x1002, driver_name: amdvlk}"), 1)}
	after := renderTree(t, added)
	if len(after) <= len(before) {
		t.Fatalf("adding gfx1201 added no sources (%d, %d)", len(before), len(after))
	}
	same := 0
	for p, b := range before {
		a := after[p]
		if a == nil {
			t.Errorf("%s: gone after adding an arch", p)
			continue
		}
		if a.InputsHash != b.InputsHash {
			t.Errorf("%s: inputs hash changed when another arch was added", p)
		}
		same++
	}
	t.Logf("%d sources keep their inputs hash; %d new", same, len(after)-len(before))

	// An arch's own file is an input of its HIP sources only.
	edited := clone()
	edited["archs/gfx1200.yaml"] = &fstest.MapFile{Data: append(append([]byte{}, base["archs/gfx1200.yaml"].Data...), []byte("# a comment\n")...)}
	changed := renderTree(t, edited)
	for p, b := range before {
		own := b.Kind == KindHIP && b.Arch == "gfx1200"
		if moved := changed[p].InputsHash != b.InputsHash; moved != own {
			t.Errorf("%s: after editing archs/gfx1200.yaml, inputs hash changed %v, want %v", p, moved, own)
		}
	}
	// kernels.yaml is an input of every rendered source but the copied header.
	edited = clone()
	edited["kernels.yaml"] = &fstest.MapFile{Data: append(append([]byte{}, base["kernels.yaml"].Data...), []byte("# a comment\n")...)}
	changed = renderTree(t, edited)
	for p, b := range before {
		if moved := changed[p].InputsHash != b.InputsHash; moved != (b.Kind != KindHeader) {
			t.Errorf("%s: after editing kernels.yaml, inputs hash changed %v", p, moved)
		}
	}
}

package spec_test

import (
	"strings"
	"testing"
	"testing/fstest"

	"github.com/kgen-dev/kgen/gen/spec"
)

// Block dtypes and int_dot: the real spec loads with its block formats and
// int_dot facts; a wrong block size or byte count, a block format on the
// wrong side, scaled block weights, and int_dot on the wrong backend or
// target are positioned errors naming what is allowed.
func TestBlockDtypesAndIntDot(t *testing.T) {
	s, err := spec.Load(realFS(t), "templates")
	if err != nil {
		t.Fatal(err)
	}
	if d := s.Dtypes["q4_k"]; d == nil || d.WeightBlock != 256 || d.WeightBytes != 144 || d.ActBlock != 32 || d.ActBytes != 36 {
		t.Errorf("q4_k: %+v", d)
	}
	if d := s.Dtypes["bf16"]; d.WeightBlock != 1 || d.ActBlock != 1 {
		t.Errorf("bf16: blocks %d, %d; want 1, 1", d.WeightBlock, d.ActBlock)
	}
	for arch, want := range map[string]string{"gfx90a": "sdot4", "gfx942": "sdot4", "gfx1100": "sudot4", "gfx1200": "sudot4", "sm90": "dp4a", "llvmpipe": "", "nvidia": "khr"} {
		if a := s.Arch(arch); a == nil || a.IntDot != want {
			t.Errorf("%s: int_dot %+v, want %q", arch, a, want)
		}
	}
	for arch, want := range map[string]string{"nvidia": "nv", "llvmpipe": "", "sm90": ""} {
		if a := s.Arch(arch); a == nil || a.Coopmat != want {
			t.Errorf("%s: coopmat %+v, want %q", arch, a, want)
		}
	}
	q4 := "  q4_k: {weight: q4_k, act: q8_1, weight_block: 256, weight_bytes: 144, act_block: 32, act_bytes: 36}\n"
	for _, c := range []struct{ name, file, old, new, want string }{
		{"bytes", "kernels.yaml", q4, strings.Replace(q4, "weight_bytes: 144", "weight_bytes: 146", 1), `weight "q4_k" with weight_block 256 and weight_bytes 146; the format is 256 elements in 144 bytes`},
		{"block", "kernels.yaml", q4, strings.Replace(q4, "weight_block: 256", "weight_block: 32", 1), "the format is 256 elements in 144 bytes"},
		{"side", "kernels.yaml", q4, strings.Replace(q4, "act: q8_1, ", "act: q8_0, ", 1), `act "q8_0" is not an activation format`},
		{"element block", "kernels.yaml", q4, q4 + "  f32b: {weight: f32, act: f32, weight_bytes: 4, act_bytes: 4, weight_block: 4}\n", "only block formats"},
		{"scaled", "kernels.yaml", q4, strings.Replace(q4, "act_bytes: 36}", "act_bytes: 36, scaled: true}", 1), "block formats carry their own scales"},
		{"vulkan", "archs/llvmpipe.yaml", "wave: 8\n", "wave: 8\nint_dot: sdot4\n", `int_dot "sdot4" for a vulkan device class; allowed: khr`},
		{"target", "archs/gfx1200.yaml", "int_dot: sudot4", "int_dot: dp4a", `int_dot "dp4a" for target amdgcn; allowed: sdot4, sudot4`},
		{"cuda", "archs/sm90.yaml", "int_dot: dp4a", "int_dot: sdot4", `int_dot "sdot4" for target cuda; allowed: dp4a`},
		{"coopmat hip", "archs/sm90.yaml", "int_dot: dp4a", "int_dot: dp4a\ncoopmat: nv", `coopmat "nv" for a hip arch`},
		{"coopmat value", "archs/nvidia.yaml", "coopmat: nv", "coopmat: khr", `coopmat "khr"; allowed: nv`},
	} {
		t.Run(c.name, func(t *testing.T) {
			fsys := realFS(t)
			src := string(fsys[c.file].Data)
			if !strings.Contains(src, c.old) {
				t.Fatalf("%s has no %q", c.file, c.old)
			}
			fsys[c.file] = &fstest.MapFile{Data: []byte(strings.Replace(src, c.old, c.new, 1))}
			_, err := spec.Load(fsys, "templates")
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), c.file+":") {
				t.Errorf("got %v; want a positioned error in %s containing %q", err, c.file, c.want)
			}
		})
	}
}

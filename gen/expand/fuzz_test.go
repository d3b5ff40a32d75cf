package expand_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/kgen-dev/kgen/gen/expand"
	"github.com/kgen-dev/kgen/gen/spec"
)

// fuzzKernels is a valid kernel spec with holes for the fuzzer: the values
// of two axes, one constraint, and (below) an arch's wave, dtypes and emit
// list. The templates are stand-ins: Expand does not render.
const fuzzKernels = `dtypes:
  f32:  {weight: f32,  act: f32,  weight_bytes: 4, act_bytes: 4}
  bf16: {weight: bf16, act: bf16, weight_bytes: 2, act_bytes: 2}
  e4m3: {weight: e4m3, act: bf16, weight_bytes: 1, act_bytes: 2, scaled: true}
families:
  gemv:
    templates: {hip: t/t.hip.tmpl, vulkan: t/t.comp.tmpl}
    axes:
      - {name: dtype, values: [f32, bf16, e4m3]}
      - {name: pack, prefix: p, values: [%s]}
      - {name: rows, prefix: r, values: [%s]}
      - name: tile
        values: [sg, wg64, sk4]
        derive:
          sg:   {layout: subgroup,  wg: 0,   splits: 1}
          wg64: {layout: workgroup, wg: 64,  splits: 1}
          sk4:  {layout: splitk,    wg: 256, splits: 4}
    constraints:
      - {rule: %q, why: "fuzzed"}
      - {rule: "layout != \"subgroup\" || rows * wave <= 512", why: "a workgroup holds rows waves"}
    vulkan: {baked: [dtype, pack, layout], specialization: {rows: 0, wg: 1, splits: 2}}
`

const fuzzHIPArch = `arch: gfx1201
backend: hip
wave: %d
compute_units: 8
shared_memory: 65536
dtypes: [%s]
emit:
  gemv: {pack: [%s]}
`

const fuzzVulkanArch = `arch: vk
backend: vulkan
match: {vendor_id: 1}
wave: 8
compute_units: 2
shared_memory: 32768
dtypes: [bf16]
`

// FuzzExpand expands valid-looking specs with fuzzed axis values,
// constraint and emit lists. It must not panic or hang; an error must be a
// positioned spec or expansion error; and a successful expansion must be
// exactly the combinations of the emitted values that pass every
// constraint, with unique names, consistent blobs and integer
// specialization constants.
func FuzzExpand(f *testing.F) {
	f.Add("1, 2, 4, 8", "1, 2, 4", "pack * bytes(dtype) <= 16", uint8(1), "f32, bf16, e4m3", "2, 8")
	f.Add("1, 2, 4, 8", "1, 2", "pack * act_bytes(dtype) <= 16 && rows <= 2", uint8(3), "f32", "8")
	f.Add("1, 2", "1, 8", "scaled(dtype) == 0 || pack >= 2", uint8(0), "e4m3, f32", "1, 2")
	f.Add("4", "1", "k > 0", uint8(2), "bf16", "4")
	f.Add("1, 2, 4", "1, 2, 4, 8", "(pack - 1) / (rows - 1) >= 0", uint8(1), "f32", "1")
	f.Add("a_b, a", "b, b_c", "pack != \"a\"", uint8(1), "f32", "a")
	f.Fuzz(func(t *testing.T, packs, rows, rule string, wave uint8, dtypes, emitPack string) {
		fsys := fstest.MapFS{
			"kernels.yaml":       {Data: []byte(fmt.Sprintf(fuzzKernels, packs, rows, rule))},
			"archs/gfx1201.yaml": {Data: []byte(fmt.Sprintf(fuzzHIPArch, 8<<(wave%4), dtypes, emitPack))},
			"archs/vk.yaml":      {Data: []byte(fuzzVulkanArch)},
			"t/t.hip.tmpl":       {Data: []byte("")},
			"t/t.comp.tmpl":      {Data: []byte("")},
		}
		type result struct {
			s   *spec.Spec
			vs  []*expand.Variant
			err error
			p   any
		}
		done := make(chan result, 1)
		go func() {
			defer func() {
				if p := recover(); p != nil {
					done <- result{p: p}
				}
			}()
			s, err := spec.Load(fsys, "templates")
			if err != nil {
				done <- result{err: err}
				return
			}
			vs, err := expand.Expand(s)
			done <- result{s: s, vs: vs, err: err}
		}()
		var r result
		select {
		case r = <-done:
		case <-time.After(10 * time.Second):
			t.Fatal("Load and Expand took more than 10s")
		}
		if r.p != nil {
			t.Fatalf("panic: %v", r.p)
		}
		if r.err != nil {
			var se *spec.Error
			var ee *expand.Error
			var line int
			switch {
			case errors.As(r.err, &se):
				line = se.Pos.Line
			case errors.As(r.err, &ee):
				line = ee.Pos.Line
			default:
				t.Fatalf("error of type %T: %v", r.err, r.err)
			}
			if line < 1 || strings.ContainsAny(r.err.Error(), "\n\r") {
				t.Fatalf("error without a position, or on several lines: %q", r.err.Error())
			}
			if testing.Verbose() {
				t.Log(r.err)
			}
			return
		}
		checkExpansion(t, r.s, r.vs)
		if testing.Verbose() {
			t.Logf("%d variants", len(r.vs))
		}
	})
}

// checkExpansion recomputes the expansion independently and compares.
func checkExpansion(t *testing.T, s *spec.Spec, vs []*expand.Variant) {
	f := s.Family("gemv")
	keys := map[string]bool{}
	got := map[string]map[string]bool{} // arch -> canonical params
	blobs := map[string]string{}
	for _, v := range vs {
		if keys[v.Key()] {
			t.Fatalf("variant %s twice", v.Key())
		}
		keys[v.Key()] = true
		env := expand.Env(s, v.Arch, v.Params)
		for _, c := range f.Constraints {
			ok, err := c.Expr.Bool(env)
			if err != nil || !ok {
				t.Fatalf("variant %s fails constraint %s (err %v)", v.Key(), c.Expr.Src, err)
			}
		}
		if got[v.Arch.Name] == nil {
			got[v.Arch.Name] = map[string]bool{}
		}
		got[v.Arch.Name][canon(f, v.Params)] = true
		if v.Arch.Backend == spec.BackendVulkan {
			baked := canonOf(f.VulkanBaked, v.Params)
			if prev, ok := blobs[v.Blob]; ok && prev != baked {
				t.Fatalf("blob %s holds %s and %s", v.Blob, prev, baked)
			}
			blobs[v.Blob] = baked
			if len(v.Spec) != len(f.VulkanSpecialization) {
				t.Fatalf("variant %s binds %d specialization constants, want %d", v.Key(), len(v.Spec), len(f.VulkanSpecialization))
			}
			for _, sv := range v.Spec {
				if fmt.Sprint(sv.Value) != v.Params[sv.Param] {
					t.Fatalf("variant %s: constant %s = %d, parameter is %q", v.Key(), sv.Param, sv.Value, v.Params[sv.Param])
				}
			}
		}
	}
	for _, a := range s.Archs {
		want := map[string]bool{}
		perDtype := map[string]int{}
		var walk func(i int, params map[string]string)
		walk = func(i int, params map[string]string) {
			if i == len(f.Axes) {
				env := expand.Env(s, a, params)
				for _, c := range f.Constraints {
					if ok, err := c.Expr.Bool(env); err != nil || !ok {
						return
					}
				}
				want[canon(f, params)] = true
				perDtype[params["dtype"]]++
				return
			}
			ax := f.Axes[i]
			vals := ax.Values
			if sub, ok := a.Emit[f.Name][ax.Name]; ok {
				vals = sub
			}
			for _, val := range vals {
				if ax.Name == "dtype" && !contains(a.Dtypes, val) {
					continue
				}
				p := map[string]string{}
				for k, x := range params {
					p[k] = x
				}
				p[ax.Name] = val
				for k, x := range ax.Derive[val] {
					p[k] = x
				}
				walk(i+1, p)
			}
		}
		walk(0, map[string]string{})
		if len(want) != len(got[a.Name]) {
			t.Fatalf("arch %s: %d variants, the constraints allow %d", a.Name, len(got[a.Name]), len(want))
		}
		for k := range want {
			if !got[a.Name][k] {
				t.Fatalf("arch %s: %s passes the constraints but was not emitted", a.Name, k)
			}
		}
		for _, d := range a.Dtypes {
			if contains(f.Axis("dtype").Values, d) && perDtype[d] == 0 {
				t.Fatalf("arch %s lists dtype %s, which has no variants, and Expand did not say so", a.Name, d)
			}
		}
	}
}

func canon(f *spec.Family, params map[string]string) string {
	var names []string
	for _, ax := range f.Axes {
		names = append(names, ax.Name)
	}
	return canonOf(names, params)
}

func canonOf(names []string, params map[string]string) string {
	var parts []string
	for _, n := range names {
		parts = append(parts, n+"="+params[n])
	}
	return strings.Join(parts, " ")
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestVerifyCatchesMutants proves the GEMV comparison bound (kernels.yaml,
// verify.compare: ulps * 2^-24 * sqrt(k + 1)) can catch a wrong kernel: in a
// copy of the module, the Vulkan GEMV template is broken three ways — the K
// loop drops the last pack, each token reads the next token's activations,
// rows 0 and 1 trade places — and for each, `gen verify` on lavapipe must
// fail a variant of every dtype that the unmodified template passes.
func TestVerifyCatchesMutants(t *testing.T) {
	if testing.Short() {
		t.Skip("regenerates and verifies a copy of the module three times")
	}
	mod := copyModule(t)
	tmpl := filepath.Join(mod, "templates", "gemv", "gemv.comp.tmpl")
	orig, err := os.ReadFile(tmpl)
	if err != nil {
		t.Fatal(err)
	}
	// One llvmpipe variant per dtype, with 2+ tokens (so a token mix-up
	// shows), cycling through the layouts.
	out, err := genIn(mod, "list", "--json", "--family", "gemv", "--arch", "llvmpipe")
	if err != nil {
		t.Fatalf("gen list: %v\n%s", err, tail(out, 2000))
	}
	var listed []struct {
		Name   string `json:"name"`
		Dtype  string `json:"dtype"`
		Tokens string `json:"tokens"`
		Tile   string `json:"tile"`
	}
	if err := json.Unmarshal([]byte(out[strings.Index(out, "["):]), &listed); err != nil {
		t.Fatal(err)
	}
	tiles := []string{"sg", "wg64", "sk4", "wg256", "sg"} // the llvmpipe class emits these
	picked := map[string]string{}
	var variants []string
	for i, dt := range []string{"f32", "f16", "bf16", "fp8e4m3_bf16", "fp8e4m3_f16"} {
		for _, l := range listed {
			if l.Dtype == dt && l.Tokens == "4" && l.Tile == tiles[i] && picked[dt] == "" {
				picked[dt] = l.Name
				variants = append(variants, l.Name)
			}
		}
		if picked[dt] == "" {
			t.Fatalf("no llvmpipe gemv variant of dtype %s, tokens 4, tile %s", dt, tiles[i])
		}
	}
	verify := func(v string) (string, error) {
		return genIn(mod, "verify", "--backend", "vulkan", "--arch", "llvmpipe", "--variant", v, "--seed", "7")
	}
	for _, v := range variants {
		if out, err := verify(v); err != nil {
			t.Fatalf("unmodified %s: %v\n%s", v, err, tail(out, 2000))
		}
	}
	for _, m := range []struct {
		name string
		edit [][2]string // replace every occurrence; each must occur
	}{
		{"drops the last pack of K", [][2]string{
			{"k < K;", "k < K - PACK;"},
			{"uint kbeg = 0u, kend = K;", "uint kbeg = 0u, kend = K - PACK;"},
			{"kend = min(K, kbeg + chunk);", "kend = min(K - PACK, kbeg + chunk);"},
		}},
		{"reads the next token's activations", [][2]string{
			{"loadX(min(t, T - 1u) * K + k)", "loadX(min(t + 1u, T - 1u) * K + k)"},
		}},
		{"swaps rows 0 and 1", [][2]string{
			{"y[t * N + row] =", "y[t * N + (row < 2u ? 1u - row : row)] ="},
			{"y[t * N + n] =", "y[t * N + (n < 2u ? 1u - n : n)] ="},
		}},
	} {
		t.Run(strings.ReplaceAll(m.name, " ", "_"), func(t *testing.T) {
			src := string(orig)
			for _, e := range m.edit {
				if !strings.Contains(src, e[0]) {
					t.Fatalf("the template no longer has %q: update the mutation", e[0])
				}
				src = strings.ReplaceAll(src, e[0], e[1])
			}
			if err := os.WriteFile(tmpl, []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
			defer os.WriteFile(tmpl, orig, 0o644)
			if out, err := genIn(mod, "-q"); err != nil {
				t.Fatalf("gen: %v\n%s", err, tail(out, 2000))
			}
			for _, v := range variants {
				out, err := verify(v)
				if err == nil || !strings.Contains(out, "FAIL ") {
					t.Errorf("a kernel that %s passed verification: %s\n%s", m.name, v, tail(out, 600))
					continue
				}
				// Every case is checked, the long-K one too: there a
				// dropped pack is ~1e-3 of sum |x*w|, which the old fixed
				// 1e-3 bound let through.
				long := longKFailure(out)
				if long == "" {
					t.Errorf("a kernel that %s passed the long-K case (k >= 8192): %s\n%s", m.name, v, tail(out, 1200))
				}
				t.Logf("%s: %s", v, long)
			}
		})
	}
}

// longKFailure is the first FAIL line of a case with k >= 8192.
func longKFailure(out string) string {
	for _, l := range strings.Split(out, "\n") {
		var m, n, k int
		i := strings.Index(l, " m=")
		if !strings.HasPrefix(l, "FAIL ") || i < 0 {
			continue
		}
		if _, err := fmt.Sscanf(l[i:], " m=%d n=%d k=%d", &m, &n, &k); err == nil && k >= 8192 {
			return l
		}
	}
	return ""
}

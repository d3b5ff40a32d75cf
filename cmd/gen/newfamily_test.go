package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestNewFamilyIsSpecOnly is the launch-contract promise: a new family is
// templates, spec entries and a CPU reference, nothing more. In a copy of
// the module it adds q81copy and gemvcopy to templates/kernels.yaml as
// copies of quant_q8_1 and gemv (same templates, same references), runs
// gen, verifies every q81copy variant and one gemvcopy variant on the
// local Vulkan device (lavapipe in CI) through the CLI, and checks that no
// .go file outside generated/ changed.
func TestNewFamilyIsSpecOnly(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and verifies a copy of the module")
	}
	mod := copyModule(t)
	before := goSources(t, mod)

	kernels := filepath.Join(mod, "templates", "kernels.yaml")
	b, err := os.ReadFile(kernels)
	if err != nil {
		t.Fatal(err)
	}
	spec := string(b)
	spec = addFamilyCopy(t, spec, "gemv", "gemvcopy")
	spec = addFamilyCopy(t, spec, "quant_q8_1", "q81copy")
	if err := os.WriteFile(kernels, []byte(spec), 0o644); err != nil {
		t.Fatal(err)
	}
	// Arch files that restrict a family's axes (emit:) name families;
	// the copies take the families' defaults there.

	run := func(args ...string) string {
		t.Helper()
		out, err := genIn(mod, args...)
		if err != nil {
			t.Fatalf("gen %s: %v\n%s", strings.Join(args, " "), err, tail(out, 3000))
		}
		return out
	}
	run("-q")
	out := run("list", "--json", "--family", "gemvcopy", "--arch", "llvmpipe")
	var listed []struct {
		Name string `json:"name"`
	}
	if err := json.Unmarshal([]byte(out[strings.Index(out, "["):]), &listed); err != nil || len(listed) == 0 {
		t.Fatalf("gen list gemvcopy on llvmpipe: %v\n%s", err, tail(out, 500))
	}
	// One gemvcopy variant: a split-K one exercises the scratch buffers.
	variant := listed[0].Name
	for _, l := range listed {
		if strings.HasSuffix(l.Name, "_sk4") && strings.Contains(l.Name, "bf16") {
			variant = l.Name
			break
		}
	}
	q := run("verify", "--backend", "vulkan", "--arch", "llvmpipe", "--family", "q81copy")
	t.Log(lastLine(q))
	// 21: quant_q8_1's Vulkan variants (3 dtypes x thread, lane, sg, multi,
	// wg, plus sg, multi, wg at 2 passes for the 2 16-bit dtypes)
	if !regexp.MustCompile(`verified 21 variants .*: 21 passed, 0 failed`).MatchString(q) {
		t.Errorf("verify q81copy: %s", tail(q, 1000))
	}
	g := run("verify", "--backend", "vulkan", "--arch", "llvmpipe", "--variant", variant)
	t.Log(lastLine(g))
	if !regexp.MustCompile(`verified 1 variants .*: 1 passed, 0 failed`).MatchString(g) {
		t.Errorf("verify %s: %s", variant, tail(g, 1000))
	}
	after := goSources(t, mod)
	for p, h := range before {
		if after[p] != h {
			t.Errorf("%s changed: adding a family must not need Go outside generated/", p)
		}
	}
	for p := range after {
		if _, ok := before[p]; !ok {
			t.Errorf("%s appeared outside generated/", p)
		}
	}
}

// copyModule copies the module (everything but dot-directories) to a
// temporary directory and returns its path.
func copyModule(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	mod := filepath.Join(t.TempDir(), "mod")
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") {
			continue
		}
		if err := copyTree(filepath.Join(root, e.Name()), filepath.Join(mod, e.Name())); err != nil {
			t.Fatal(err)
		}
	}
	return mod
}

// genIn runs `go run ./cmd/gen args...` in the module copy mod.
func genIn(mod string, args ...string) (string, error) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		return "", err
	}
	cmd := exec.Command(goBin, append([]string{"run", "./cmd/gen"}, args...)...)
	cmd.Dir = mod
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod")
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// addFamilyCopy appends a copy of family from's block in kernels.yaml under
// the name to (blocks are the lines from "  from:" to the next family).
func addFamilyCopy(t *testing.T, spec, from, to string) string {
	t.Helper()
	lines := strings.Split(spec, "\n")
	start, end := -1, len(lines)
	for i, l := range lines {
		if l == "  "+from+":" {
			start = i
			continue
		}
		if start >= 0 && i > start && len(l) > 2 && l[0] == ' ' && l[1] == ' ' && l[2] != ' ' && l[2] != '#' {
			end = i
			break
		}
	}
	if start < 0 {
		t.Fatalf("no family %s in kernels.yaml", from)
	}
	block := append([]string{"  " + to + ":"}, lines[start+1:end]...)
	for len(block) > 0 && strings.TrimSpace(block[len(block)-1]) == "" {
		block = block[:len(block)-1]
	}
	return strings.TrimRight(spec, "\n") + "\n\n" + strings.Join(block, "\n") + "\n"
}

// goSources hashes every .go file outside generated/.
func goSources(t *testing.T, mod string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(mod, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(mod, p)
		if d.IsDir() && rel == "generated" {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(p, ".go") {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			s := sha256.Sum256(b)
			out[rel] = hex.EncodeToString(s[:])
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func tail(s string, n int) string {
	if len(s) > n {
		return "..." + s[len(s)-n:]
	}
	return s
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}

package compile_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/kgen-dev/kgen/gen"
	"github.com/kgen-dev/kgen/gen/compile"
)

// corruptions damage a cache entry file in the ways disks, interrupted
// copies and people do.
var corruptions = []struct {
	name string
	do   func(t *testing.T, p string, other []byte)
}{
	{"flip payload byte", func(t *testing.T, p string, _ []byte) {
		edit(t, p, func(b []byte) []byte { b[len(b)-1] ^= 0x40; return b })
	}},
	{"flip checksum byte", func(t *testing.T, p string, _ []byte) { edit(t, p, func(b []byte) []byte { b[3] ^= 1; return b }) }},
	{"truncate to empty", func(t *testing.T, p string, _ []byte) { edit(t, p, func(b []byte) []byte { return nil }) }},
	{"truncate inside checksum", func(t *testing.T, p string, _ []byte) { edit(t, p, func(b []byte) []byte { return b[:17] }) }},
	{"truncate to checksum", func(t *testing.T, p string, _ []byte) { edit(t, p, func(b []byte) []byte { return b[:32] }) }},
	{"truncate payload", func(t *testing.T, p string, _ []byte) {
		edit(t, p, func(b []byte) []byte { return b[:32+(len(b)-32)/2] })
	}},
	{"append garbage", func(t *testing.T, p string, _ []byte) {
		edit(t, p, func(b []byte) []byte { return append(b, 0, 1, 2) })
	}},
	{"another key's entry", func(t *testing.T, p string, other []byte) { edit(t, p, func([]byte) []byte { return other }) }},
}

func edit(t *testing.T, p string, f func([]byte) []byte) {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, f(b), 0o644); err != nil {
		t.Fatal(err)
	}
}

// entries lists the cache's entry files.
func entries(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && !strings.HasPrefix(d.Name(), ".tmp-") {
			out = append(out, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestCacheDetectsCorruption: every kind of damage makes Get miss and
// remove the entry; a Put rebuilds it.
func TestCacheDetectsCorruption(t *testing.T) {
	c := &compile.Cache{Dir: t.TempDir()}
	other := compile.Key("other")
	c.Put(other, []byte("another payload"))
	otherBytes, err := os.ReadFile(entries(t, c.Dir)[0])
	if err != nil {
		t.Fatal(err)
	}
	for _, cr := range corruptions {
		key := compile.Key("entry", cr.name)
		payload := []byte("SPIR-V bytes for " + cr.name)
		c.Put(key, payload)
		if got := c.Get(key); !bytes.Equal(got, payload) {
			t.Fatalf("%s: fresh entry reads %q", cr.name, got)
		}
		p := filepath.Join(c.Dir, key[:2], key)
		cr.do(t, p, otherBytes)
		if got := c.Get(key); got != nil {
			t.Errorf("%s: Get returned %q from a damaged entry", cr.name, got)
		}
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("%s: damaged entry not removed (%v)", cr.name, err)
		}
		c.Put(key, payload)
		if got := c.Get(key); !bytes.Equal(got, payload) {
			t.Errorf("%s: rebuilt entry reads %q", cr.name, got)
		}
	}
	if got := c.Get(other); string(got) != "another payload" {
		t.Errorf("the other entry: %q", got)
	}
	// An empty payload is a valid entry (HIP checks store "ok", but the
	// format allows empty).
	k := compile.Key("empty")
	c.Put(k, []byte{})
	if got := c.Get(k); got == nil || len(got) != 0 {
		t.Errorf("empty payload: %v", got)
	}
}

// TestCorruptCacheNeverReachesOutput builds the module's outputs (SPIR-V
// blobs through glslang; no clang) with a fresh cache, damages entries (two
// of each kind of damage), builds again and compares: exactly the damaged
// entries are rebuilt and the outputs are byte-identical. A third build hits
// the cache for everything.
func TestCorruptCacheNeverReachesOutput(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles every SPIR-V blob twice")
	}
	ctx := context.Background()
	if _, _, err := compile.FindGlslang(ctx); err != nil {
		t.Skip(err)
	}
	root, err := gen.FindRoot(".")
	if err != nil {
		t.Fatal(err)
	}
	o := &gen.Options{Root: root, CacheDir: t.TempDir(), SkipHIPCheck: true}
	first, err := gen.Build(ctx, o, nil)
	if err != nil {
		t.Fatal(err)
	}
	if first.Compiled == 0 || first.Cached != 0 {
		t.Fatalf("cold build: %d compiled, %d cached", first.Compiled, first.Cached)
	}
	es := entries(t, o.CacheDir)
	if len(es) != first.Compiled {
		t.Fatalf("%d cache entries for %d compiles", len(es), first.Compiled)
	}
	other, err := os.ReadFile(es[0])
	if err != nil {
		t.Fatal(err)
	}
	damaged := 0
	for i, p := range es[1:] {
		if i >= 2*len(corruptions) {
			break
		}
		corruptions[i%len(corruptions)].do(t, p, other)
		damaged++
	}
	second, err := gen.Build(ctx, o, nil)
	if err != nil {
		t.Fatal(err)
	}
	if second.Compiled != damaged || second.Cached != first.Compiled-damaged {
		t.Errorf("after damaging %d entries: %d compiled, %d cached; want the damaged ones rebuilt", damaged, second.Compiled, second.Cached)
	}
	if !reflect.DeepEqual(first.Files, second.Files) {
		for p := range first.Files {
			if !bytes.Equal(first.Files[p], second.Files[p]) {
				t.Errorf("generated/%s differs after the cache was damaged", p)
			}
		}
	}
	third, err := gen.Build(ctx, o, nil)
	if err != nil {
		t.Fatal(err)
	}
	if third.Compiled != 0 || third.Cached != first.Compiled || !reflect.DeepEqual(first.Files, third.Files) {
		t.Errorf("warm build: %d compiled, %d cached (want 0, %d); same files: %v", third.Compiled, third.Cached, first.Compiled, reflect.DeepEqual(first.Files, third.Files))
	}
	t.Logf("%d of %d entries damaged (%d ways), all rebuilt; %d generated files identical", damaged, len(es), len(corruptions), len(first.Files))
}

package spec_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"testing/fstest"

	"github.com/kgen-dev/kgen/gen/spec"
	"github.com/kgen-dev/kgen/templates"
)

// writeTree writes the real templates tree under a new directory.
func writeTree(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "templates")
	for p, f := range realFS(t) {
		dst := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst, f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestLoadRefusesLinks: a symbolic link anywhere under templates/ (to a
// file or a directory, inside the tree or out of it, dangling or not), or
// any other entry that is neither a directory nor a regular file, is a
// positioned *spec.Error naming templates/<path> and saying why, before
// anything is read through it.
func TestLoadRefusesLinks(t *testing.T) {
	outside := filepath.Join(t.TempDir(), "outside.yaml")
	if err := os.WriteFile(outside, []byte("arch: gfx1201\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, link, target string
		replace            bool // the link replaces an existing entry
		why                string
	}{
		{"file in tree", "archs/gfx1200.yaml", "gfx942.yaml", true, `a symbolic link to "gfx942.yaml"`},
		{"kernels file", "kernels.yaml", "archs/gfx942.yaml", true, "a symbolic link"},
		{"file outside", "archs/gfx1201.yaml", outside, false, "a symbolic link to " + `"` + outside + `"`},
		{"dangling", "include/gone.h", "nowhere.h", false, `a symbolic link to "nowhere.h"`},
		{"template folder", "gemv", "quant", true, `a symbolic link to "quant"`},
		{"unreferenced folder", "extra", "/", false, `a symbolic link to "/"`},
		{"template file", "gemv/gemv.hip.tmpl", "gemv.comp.tmpl", true, "a symbolic link"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := writeTree(t)
			p := filepath.Join(dir, filepath.FromSlash(c.link))
			if c.replace {
				if err := os.RemoveAll(p); err != nil {
					t.Fatal(err)
				}
			}
			if err := os.Symlink(c.target, p); err != nil {
				t.Fatal(err)
			}
			_, err := spec.Load(os.DirFS(dir), "templates")
			checkTreeError(t, err, "templates/"+c.link, c.why)
		})
	}
	t.Run("fifo", func(t *testing.T) {
		dir := writeTree(t)
		if err := syscall.Mkfifo(filepath.Join(dir, "archs", "pipe.yaml"), 0o644); err != nil {
			t.Skipf("mkfifo: %v", err)
		}
		// A FIFO read would block: Load must refuse it without opening it.
		_, err := spec.Load(os.DirFS(dir), "templates")
		checkTreeError(t, err, "templates/archs/pipe.yaml", "not a regular file or directory")
	})
	t.Run("mapfs", func(t *testing.T) {
		m := realFS(t)
		m["archs/gfx1201.yaml"] = &fstest.MapFile{Data: []byte("gfx1200.yaml"), Mode: fs.ModeSymlink}
		_, err := spec.Load(m, "templates")
		checkTreeError(t, err, "templates/archs/gfx1201.yaml", `a symbolic link to "gfx1200.yaml"`)
	})
	// The real tree, on disk and as compiled in, has no links.
	if _, err := spec.Load(os.DirFS(writeTree(t)), "templates"); err != nil {
		t.Fatalf("the real tree on disk: %v", err)
	}
	if _, err := spec.Load(templates.FS, "templates"); err != nil {
		t.Fatalf("the embedded tree: %v", err)
	}
	// The root itself may be a link (gen --templates DIR).
	root := writeTree(t)
	alias := filepath.Join(t.TempDir(), "alias")
	if err := os.Symlink(root, alias); err != nil {
		t.Fatal(err)
	}
	if _, err := spec.Load(os.DirFS(alias), "templates"); err != nil {
		t.Fatalf("a linked root: %v", err)
	}
}

func checkTreeError(t *testing.T, err error, path, why string) {
	t.Helper()
	var se *spec.Error
	if !errors.As(err, &se) {
		t.Fatalf("got %T %v, want a *spec.Error", err, err)
	}
	msg := err.Error()
	if se.Pos.File != path || !strings.HasPrefix(msg, path+":1:1: ") {
		t.Errorf("error %q names %s, want %s:1:1", msg, se.Pos.File, path)
	}
	for _, want := range []string{why, "kgen reads only regular files inside templates/"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error %q lacks %q", msg, want)
		}
	}
	if strings.ContainsAny(msg, "\n\r") {
		t.Errorf("error is not one line: %q", msg)
	}
}

package sync

import (
	"os"
	"path/filepath"
	"reflect"
	"syscall"
	"testing"
	"time"
)

type stamp struct {
	ino   uint64
	mtime time.Time
}

func stat(t *testing.T, p string) stamp {
	t.Helper()
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	return stamp{fi.Sys().(*syscall.Stat_t).Ino, fi.ModTime()}
}

func files(t *testing.T, dir string) map[string]string {
	t.Helper()
	m, err := Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for k, v := range m {
		out[k] = string(v)
	}
	return out
}

func bytesMap(m map[string]string) map[string][]byte {
	out := map[string][]byte{}
	for k, v := range m {
		out[k] = []byte(v)
	}
	return out
}

func TestWriteKeepsUnchangedFiles(t *testing.T) {
	parent := t.TempDir()
	dir := filepath.Join(parent, "generated")
	first := map[string]string{"a.txt": "a", "sub/b.txt": "b", "sub/c.txt": "c", "gone.txt": "old"}
	w, r, err := Write(dir, bytesMap(first))
	if err != nil || w != 4 || r != 0 {
		t.Fatalf("first Write: %d written, %d removed, %v", w, r, err)
	}
	if err := os.WriteFile(filepath.Join(dir, "generate.go"), []byte("package generated\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o750); err != nil {
		t.Fatal(err)
	}
	before := map[string]stamp{}
	for _, p := range []string{"a.txt", "sub/b.txt", "sub/c.txt", "generate.go"} {
		before[p] = stat(t, filepath.Join(dir, p))
	}
	time.Sleep(20 * time.Millisecond) // a rewritten file would get a later mtime

	// Nothing changed: nothing is touched, not even the directory.
	dirBefore := stat(t, dir)
	if w, r, err := Write(dir, bytesMap(first)); err != nil || w != 0 || r != 0 {
		t.Fatalf("unchanged Write: %d written, %d removed, %v", w, r, err)
	}
	if stat(t, dir) != dirBefore {
		t.Error("an unchanged Write touched the directory")
	}

	second := map[string]string{"a.txt": "a", "sub/b.txt": "B", "sub/c.txt": "c", "new/d.txt": "d"}
	w, r, err = Write(dir, bytesMap(second))
	if err != nil || w != 2 || r != 1 {
		t.Fatalf("second Write: %d written, %d removed, %v", w, r, err)
	}
	if got := files(t, dir); !reflect.DeepEqual(got, second) {
		t.Fatalf("after Write: %v, want %v", got, second)
	}
	for _, p := range []string{"a.txt", "sub/c.txt", "generate.go"} {
		if got := stat(t, filepath.Join(dir, p)); got != before[p] {
			t.Errorf("%s: unchanged, but its inode or mtime changed (%v -> %v)", p, before[p], got)
		}
	}
	if got := stat(t, filepath.Join(dir, "sub/b.txt")); got.ino == before["sub/b.txt"].ino {
		t.Error("sub/b.txt changed but kept its inode: rewritten in place?")
	}
	if _, err := os.Stat(filepath.Join(dir, "gone.txt")); !os.IsNotExist(err) {
		t.Errorf("orphan gone.txt not removed: %v", err)
	}
	if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm() != 0o750 {
		t.Errorf("directory mode after the swap: %v %v", fi.Mode(), err)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "generate.go")); err != nil || string(b) != "package generated\n" {
		t.Errorf("Keep file: %q %v", b, err)
	}
	if left, _ := filepath.Glob(filepath.Join(parent, ".kgen-*")); len(left) != 0 {
		t.Errorf("left behind: %v", left)
	}
}

func TestDiffKinds(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "generated")
	if _, _, err := Write(dir, bytesMap(map[string]string{"same": "1", "changed": "old", "orphan": "x"})); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "generate.go"), []byte("kept"), 0o644); err != nil {
		t.Fatal(err)
	}
	changes, err := Diff(dir, bytesMap(map[string]string{"same": "1", "changed": "new", "missing": "m"}))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range changes {
		got = append(got, c.Kind+" "+c.Path+" "+string(c.Old)+">"+string(c.New))
	}
	want := []string{"changed changed old>new", "missing missing >m", "orphan orphan x>"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Diff = %q, want %q (sorted by path; generate.go is kept, not an orphan)", got, want)
	}
	// A missing directory holds nothing: everything is missing.
	changes, err = Diff(filepath.Join(t.TempDir(), "none"), bytesMap(map[string]string{"a": "1"}))
	if err != nil || len(changes) != 1 || changes[0].Kind != "missing" {
		t.Errorf("Diff of a missing dir: %+v %v", changes, err)
	}
}

func TestRecover(t *testing.T) {
	parent := t.TempDir()
	dir := filepath.Join(parent, "generated")
	mk := func(p, content string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// A stage left by a killed run, and an old tree left after a swap.
	mk(filepath.Join(dir, "a"), "current")
	mk(filepath.Join(parent, stagePrefix+"generated-123", "a"), "half")
	mk(filepath.Join(parent, oldPrefix+"generated-456", "a"), "previous")
	mk(filepath.Join(parent, stagePrefix+"other-1", "a"), "someone else's")
	if err := Recover(dir); err != nil {
		t.Fatal(err)
	}
	if got := files(t, dir); !reflect.DeepEqual(got, map[string]string{"a": "current"}) {
		t.Errorf("generated/ after Recover: %v", got)
	}
	left, _ := filepath.Glob(filepath.Join(parent, ".kgen-*"))
	if len(left) != 1 || filepath.Base(left[0]) != stagePrefix+"other-1" {
		t.Errorf("after Recover: %v, want only the other tree's stage", left)
	}
	// Killed between the two renames of the fallback swap: generated/ is
	// missing and the old tree is put back.
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	mk(filepath.Join(parent, oldPrefix+"generated-789", "a"), "previous")
	if err := Recover(dir); err != nil {
		t.Fatal(err)
	}
	if got := files(t, dir); !reflect.DeepEqual(got, map[string]string{"a": "previous"}) {
		t.Errorf("generated/ after recovering the old tree: %v", got)
	}
}

func TestWriteCreatesDir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "generated")
	if _, _, err := Write(dir, bytesMap(map[string]string{"x/y": "z"})); err != nil {
		t.Fatal(err)
	}
	if got := files(t, dir); !reflect.DeepEqual(got, map[string]string{"x/y": "z"}) {
		t.Errorf("%v", got)
	}
}

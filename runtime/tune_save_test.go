package runtime

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestTuneCacheSaveSyncs: Save syncs the new file before renaming it into
// place and the directory after, and a failed sync leaves the old file and
// no temp file behind.
func TestTuneCacheSaveSyncs(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "tune.json")
	if err := os.WriteFile(path, []byte("old\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	type synced struct {
		name      string
		renamedIn bool // path already held the new bytes
	}
	var got []synced
	var fail error
	real := syncFile
	t.Cleanup(func() { syncFile = real })
	syncFile = func(f *os.File) error {
		b, _ := os.ReadFile(path)
		got = append(got, synced{f.Name(), string(b) != "old\n"})
		if fail != nil {
			return fail
		}
		return real(f)
	}
	c := &TuneCache{Version: tuneVersion, Entries: map[string]*TuneEntry{"k": {Variant: "v"}}}
	if err := c.Save(path); err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || filepath.Dir(got[0].name) != dir || got[0].name == path || got[0].renamedIn || got[1].name != dir || !got[1].renamedIn {
		t.Fatalf("syncs %+v; want the temp file before the rename, then %s after it", got, dir)
	}

	os.WriteFile(path, []byte("old\n"), 0o644)
	got, fail = nil, errors.New("sync failed")
	if err := c.Save(path); !errors.Is(err, fail) {
		t.Fatalf("Save with a failing sync: %v, want the sync error", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "old\n" {
		t.Errorf("a failed sync replaced the file: %q", b)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".tune-*")); len(left) > 0 {
		t.Errorf("left behind: %v", left)
	}
}

package gen

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestLockWritesPID: the lock file holds the holder's pid, and a lock file
// that cannot take it (here a link to /dev/full) is an error, not a lock
// taken silently.
func TestLockWritesPID(t *testing.T) {
	root := t.TempDir()
	unlock, err := lock(root)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(root, LockFile))
	if err != nil || strings.TrimSpace(string(b)) != strconv.Itoa(os.Getpid()) {
		t.Errorf("lock file holds %q (%v), want the pid %d", b, err, os.Getpid())
	}
	unlock()

	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full")
	}
	full := t.TempDir()
	if err := os.Symlink("/dev/full", filepath.Join(full, LockFile)); err != nil {
		t.Fatal(err)
	}
	unlock, err = lock(full)
	if err == nil {
		unlock()
		t.Fatal("lock on a file that cannot take the pid succeeded")
	}
	if !strings.Contains(err.Error(), "writing the pid") {
		t.Errorf("error %q does not say the pid could not be written", err)
	}
}

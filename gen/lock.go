package gen

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// LockFile sits in the module root; it serializes `gen` runs on one tree.
const LockFile = ".kgen.lock"

// lock takes an exclusive flock on Root/.kgen.lock. The kernel drops it when
// the process dies, so a killed run never leaves the tree locked.
func lock(root string) (func(), error) {
	p := filepath.Join(root, LockFile)
	f, err := os.OpenFile(p, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		// The holder writes its pid just after taking the lock: a run
		// started at the same moment may find the file still empty.
		pid := ""
		for i := 0; i < 20 && pid == ""; i++ {
			b, _ := os.ReadFile(p)
			if pid = strings.TrimSpace(string(b)); pid == "" {
				time.Sleep(10 * time.Millisecond)
			}
		}
		if pid == "" {
			pid = "unknown"
		}
		return nil, &LockedError{PID: pid}
	}
	// The pid is what a second run reports; a lock file that cannot take
	// it (a full disk, a read-only or odd file) is an error, not a lock
	// that later reports "pid unknown".
	if err := writePID(f); err != nil {
		syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
		return nil, fmt.Errorf("%s: writing the pid: %w", p, err)
	}
	return func() {
		f.Truncate(0)
		syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}

func writePID(f *os.File) error {
	if err := f.Truncate(0); err != nil {
		return err
	}
	_, err := f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	return err
}

// LockedError says another gen holds the lock.
type LockedError struct{ PID string }

func (e *LockedError) Error() string {
	return fmt.Sprintf("another gen is running (pid %s) on this tree; wait for it to finish", e.PID)
}

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
	f.Truncate(0)
	f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	return func() {
		f.Truncate(0)
		syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}

// LockedError says another gen holds the lock.
type LockedError struct{ PID string }

func (e *LockedError) Error() string {
	return fmt.Sprintf("another gen is running (pid %s) on this tree; wait for it to finish", e.PID)
}

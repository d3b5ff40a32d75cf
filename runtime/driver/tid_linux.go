package driver

import "syscall"

// supported: the driver libraries exist for Linux only here.
const supported = true

// gettid identifies the calling OS thread.
func gettid() int { return syscall.Gettid() }

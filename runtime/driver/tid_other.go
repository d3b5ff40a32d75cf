//go:build !linux

package driver

// supported: this package drives libcuda / libamdhip64 on Linux only.
const supported = false

// gettid never matches the driver thread's id off Linux.
func gettid() int { return -1 }

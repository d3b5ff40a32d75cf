package driver

// FakeKernelDef is an emulated kernel for OpenFake.
type FakeKernelDef struct {
	Args int // parameter count
	Run  FakeKernel
}

// OpenFake opens a Context on the Go fake driver (tests of packages built on
// this one, in this directory): modules are images listing kernel names
// separated by spaces; kernels are emulated by defs.
func OpenFake(b Backend, warp int, defs map[string]FakeKernelDef) (*Context, error) {
	f := newFake(b)
	f.warp = int32(warp)
	for name, d := range defs {
		f.kernel(name, d.Args, d.Run)
	}
	return f.open(0)
}

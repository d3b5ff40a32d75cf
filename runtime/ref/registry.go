package ref

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"sync"
)

// Problem is one verification case as a reference sees it: the op's shape,
// the dtype's element types and the planned launch's buffers (the family's
// launch contract evaluated for the op, in binding order).
type Problem struct {
	M, N, K int
	Dtype   string // the dtype's name
	Weight  string // weight element type: f32, f16, bf16, e4m3
	Act     string // activation element type: f32, f16, bf16
	Scaled  bool   // weights carry one f32 scale per row
	Buffers []Buffer
}

// Buffer is one buffer of the planned launch.
type Buffer struct {
	Name string
	Dir  string // in, out or scratch
	Elem string // element type or block format (the contract's elem)
	Size int    // bytes
}

// Buffer returns the problem's buffer named name.
func (p *Problem) Buffer(name string) (Buffer, bool) {
	for _, b := range p.Buffers {
		if b.Name == name {
			return b, true
		}
	}
	return Buffer{}, false
}

// Expected is what a reference makes for one problem: the inputs to
// upload and what a correct kernel writes to the out buffer.
type Expected struct {
	// Inputs holds every in buffer's bytes, by buffer name, sized as
	// planned.
	Inputs map[string][]byte

	// Relative compares: the exact values of the output's float32 elements
	// and the magnitudes their rounding errors are proportional to (the
	// error is measured by RelL2Mag).
	Want, Mag []float64
	// Index names output element i for messages (e.g. "t=0 n=3"); optional.
	Index func(i int) string

	// Exact compares: the output's bytes, made of Unit-byte blocks.
	Bytes []byte
	Unit  int
	// Describe says what differs in block i (got and want are its bytes):
	// where it is, how its inputs were made, which field differs, the
	// inputs; optional.
	Describe func(i int, got, want []byte) string
}

// Reference draws a problem's inputs from rng and computes the expected
// output. Each family's contract names its reference (verify.reference in
// templates/kernels.yaml); it is the only per-family Go of verification.
type Reference func(p Problem, rng *rand.Rand) (*Expected, error)

var (
	registryMu sync.RWMutex
	registry   = map[string]Reference{}
)

// Register adds a reference under name; a second one of that name panics.
func Register(name string, r Reference) {
	registryMu.Lock()
	defer registryMu.Unlock()
	if name == "" || r == nil {
		panic("ref.Register: empty name or nil reference")
	}
	if _, dup := registry[name]; dup {
		panic(fmt.Sprintf("ref.Register: reference %q registered twice", name))
	}
	registry[name] = r
}

// Lookup returns the reference registered under name.
func Lookup(name string) (Reference, bool) {
	registryMu.RLock()
	defer registryMu.RUnlock()
	r, ok := registry[name]
	return r, ok
}

// Names lists the registered references, sorted.
func Names() []string {
	registryMu.RLock()
	defer registryMu.RUnlock()
	names := make([]string, 0, len(registry))
	for n := range registry {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

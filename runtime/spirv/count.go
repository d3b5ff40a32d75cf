package spirv

import (
	"fmt"
	"io"
	"slices"
	"strings"
)

// Counted is a module instrumented by Instrument: every basic block adds 1
// to its counter in a per-invocation (Private) array, and the entry point
// adds that array to a uint32 array in a storage buffer at descriptor set
// 0 and the binding given to Instrument, before it returns (element k
// counts Blocks[k]).
type Counted struct {
	Code   []byte
	Entry  int // index in Blocks of the entry point's first block
	Blocks []Block
}

// Block is one basic block of the original module and what it executes
// once, by opcode: every instruction after its OpLabel up to its
// terminator, less the ones that only declare (OpVariable, OpLine,
// OpNoLine, OpSelectionMerge, OpLoopMerge).
type Block struct {
	Function string // the function's OpName, or %id
	Label    uint32
	Ops      []Tally
}

// Tally is how many of one instruction a block holds, or a run executed.
type Tally struct {
	Name  string // the opcode's name; OpExtInst adds the instruction's ("OpExtInst FMax")
	Class string // see opClass
	N     uint64
}

// declaresOnly are the opcodes a block holds that are not executed.
var declaresOnly = map[uint32]bool{opVariable: true, opLine: true, opNoLine: true, 246: true, 247: true}

// Instrument adds a counter to every basic block of every function of
// code; the counts land in a storage buffer at set 0 and the given binding
// (which code must not use), one uint32 a block, added to by each
// invocation of the entry point named entry as it returns. The result
// computes exactly what code computes (the counters are its only extra
// writes).
func Instrument(code []byte, entry string, binding uint32) (*Counted, error) {
	m, err := Parse(code)
	if err != nil {
		return nil, err
	}
	names := map[uint32]string{}
	typeOf := map[uint32]uint32{}     // result id -> result type, for pointer-valued results
	ptrStorage := map[uint32]uint32{} // pointer type id -> storage class
	extGLSL := map[uint32]bool{}      // OpExtInstImport ids of GLSL.std.450
	var uintType uint32
	memoryModel := uint32(1) // GLSL450
	entryFn, firstGlobal, firstFunc := uint32(0), -1, -1
	for k, in := range m.Insts {
		switch o := op(in); o {
		case opName:
			names[in[1]] = literalString(in[2:])
		case opExtInstImport:
			if literalString(in[2:]) == "GLSL.std.450" {
				extGLSL[in[1]] = true
			}
		case opMemoryModel:
			memoryModel = in[2]
		case opEntryPoint:
			if literalString(in[3:]) == entry {
				entryFn = in[2]
			}
		case opDecorate, opMemberDecorate:
			if o == opDecorate && in[2] == decoBinding && in[3] == binding {
				return nil, fmt.Errorf("spirv: binding %d is already used by %%%d; count into a free binding", binding, in[1])
			}
		case opTypeInt:
			if in[2] == 32 && in[3] == 0 {
				uintType = in[1]
			}
		case opTypePointer:
			ptrStorage[in[1]] = in[2]
		case opUndef, opFunctionParam, opVariable, opAccessChain, opInBoundsAccessChain, opPtrAccessChain, opCopyObject, opPhi, opSelect:
			typeOf[in[2]] = in[1] // the results that can be pointers
		case opFunction:
			if firstFunc < 0 {
				firstFunc = k
			}
		}
		if firstGlobal < 0 && !preamble(op(in)) {
			firstGlobal = k
		}
	}
	if entryFn == 0 {
		return nil, fmt.Errorf("spirv: no entry point named %q", entry)
	}
	if firstFunc < 0 {
		return nil, fmt.Errorf("spirv: the module has no function")
	}

	// Pass 1: the blocks, in order, and where each one's counting goes:
	// after its OpLabel, its OpPhis and (a function's first block) its
	// OpVariables, which must come first.
	c := &Counted{Entry: -1}
	at := map[int]int{} // instruction index the counting goes before -> block
	fn, first, inEntry := "", false, false
	returns := map[int]bool{} // the entry point's returns: where the counts are flushed
	for k := firstFunc; k < len(m.Insts); k++ {
		in := m.Insts[k]
		switch op(in) {
		case opFunction:
			fn, first, inEntry = names[in[2]], true, in[2] == entryFn
			if fn == "" {
				fn = fmt.Sprintf("%%%d", in[2])
			}
			if inEntry {
				c.Entry = len(c.Blocks) // its first block comes next
			}
		case opReturn, opReturnValue:
			if inEntry {
				returns[k] = true
			}
		case opLabel:
			j := k + 1
			for j < len(m.Insts) && (op(m.Insts[j]) == opPhi || op(m.Insts[j]) == opLine || op(m.Insts[j]) == opNoLine ||
				first && op(m.Insts[j]) == opVariable) {
				j++
			}
			first = false
			b, err := tallyBlock(m.Insts[k:], fn, extGLSL, typeOf, ptrStorage)
			if err != nil {
				return nil, err
			}
			at[j] = len(c.Blocks)
			c.Blocks = append(c.Blocks, b)
		}
	}
	if c.Entry < 0 || c.Entry >= len(c.Blocks) {
		return nil, fmt.Errorf("spirv: entry point %q has no body", entry)
	}

	// Each invocation counts in a Private array (registers: no atomics in
	// the loops, which made a counted run of a quantizer on lavapipe
	// thousands of times slower) and adds it to the buffer,
	// struct { uint c[]; } at set 0, binding, when the entry point returns.
	var decos, globals [][]uint32
	if uintType == 0 {
		uintType = m.newID()
		globals = append(globals, inst(opTypeInt, uintType, 32, 0))
	}
	rta, st, pst, pu, v := m.newID(), m.newID(), m.newID(), m.newID(), m.newID()
	c0, c1, scope, cn := m.newID(), m.newID(), m.newID(), m.newID()
	arr, parr, pp, null, priv := m.newID(), m.newID(), m.newID(), m.newID(), m.newID()
	decos = append(decos,
		inst(opDecorate, rta, decoArrayStride, 4),
		inst(opDecorate, st, decoBlock),
		inst(opMemberDecorate, st, 0, decoOffset, 0),
		inst(opDecorate, v, decoDescriptorSet, 0),
		inst(opDecorate, v, decoBinding, binding),
	)
	scopeValue := uint32(1) // Device
	if memoryModel == 3 {   // Vulkan: Device scope needs a capability, QueueFamily does not
		scopeValue = 5
	}
	globals = append(globals,
		inst(opTypeRuntimeArray, rta, uintType),
		inst(opTypeStruct, st, rta),
		inst(opTypePointer, pst, storageStorageBuffer, st),
		inst(opTypePointer, pu, storageStorageBuffer, uintType),
		inst(opVariable, pst, v, storageStorageBuffer),
		inst(opConstant, uintType, c0, 0),
		inst(opConstant, uintType, c1, 1),
		inst(opConstant, uintType, scope, scopeValue),
		inst(opConstant, uintType, cn, uint32(len(c.Blocks))),
		inst(opTypeArray, arr, uintType, cn),
		inst(opTypePointer, parr, storagePrivate, arr),
		inst(opTypePointer, pp, storagePrivate, uintType),
		inst(opConstantNull, arr, null),
		inst(opVariable, parr, priv, storagePrivate, null),
	)
	index := make([]uint32, len(c.Blocks)) // block -> its index constant
	for k := range index {
		index[k] = m.newID()
		globals = append(globals, inst(opConstant, uintType, index[k], uint32(k)))
	}

	// Pass 2: the functions with the counting put in.
	var body [][]uint32
	for k := firstFunc; k < len(m.Insts); k++ {
		if b, ok := at[k]; ok {
			p, old, sum := m.newID(), m.newID(), m.newID()
			body = append(body,
				inst(opAccessChain, pp, p, priv, index[b]),
				inst(opLoad, uintType, old, p),
				inst(opIAdd, uintType, sum, old, c1),
				inst(opStore, p, sum))
		}
		if returns[k] {
			for b := range c.Blocks {
				p, n, q, old := m.newID(), m.newID(), m.newID(), m.newID()
				body = append(body,
					inst(opAccessChain, pp, p, priv, index[b]),
					inst(opLoad, uintType, n, p),
					inst(opAccessChain, pu, q, v, c0, index[b]),
					inst(opAtomicIAdd, uintType, old, q, scope, c0, n)) // relaxed
			}
		}
		body = append(body, m.Insts[k])
	}
	var out [][]uint32
	for k, in := range m.Insts[:firstFunc] {
		if k == firstGlobal {
			out = append(out, decos...)
		}
		if op(in) == opEntryPoint && m.Version >= 0x00010400 {
			in = append(slices.Clone(in), v, priv) // 1.4+: the interface lists every global the entry point uses
			in[0] = uint32(len(in))<<16 | opEntryPoint
		}
		out = append(out, in)
	}
	out = append(out, globals...)
	m.Insts = append(out, body...)
	c.Code = m.Bytes()
	return c, nil
}

// tallyBlock counts what the block starting at insts[0] (its OpLabel)
// executes once.
func tallyBlock(insts [][]uint32, fn string, extGLSL map[uint32]bool, typeOf, ptrStorage map[uint32]uint32) (Block, error) {
	b := Block{Function: fn, Label: insts[0][1]}
	t := tallies{}
	for _, in := range insts[1:] {
		o := op(in)
		if o == opLabel || o == opFunctionEnd {
			return b, fmt.Errorf("spirv: block %%%d of %s has no terminator", b.Label, fn)
		}
		if !declaresOnly[o] {
			name := OpName(o)
			if o == opExtInst && extGLSL[in[3]] {
				name += " " + glsl450Name(in[4])
			}
			t.add(name, opClass(o, storageOf(in, typeOf, ptrStorage)), 1)
		}
		if terminator(o) {
			break
		}
	}
	b.Ops = t.sorted(false)
	return b, nil
}

// tallies sums Tally counts by (name, class).
type tallies map[string]*Tally

func (m tallies) add(name, class string, n uint64) {
	key := name + " " + class
	if m[key] == nil {
		m[key] = &Tally{Name: name, Class: class}
	}
	m[key].N += n
}

// sorted lists the tallies by name and class, or most first (byCount).
func (m tallies) sorted(byCount bool) []Tally {
	var out []Tally
	for _, t := range m {
		out = append(out, *t)
	}
	slices.SortFunc(out, func(a, b Tally) int {
		if byCount && a.N != b.N {
			if a.N > b.N {
				return -1
			}
			return 1
		}
		return strings.Compare(a.Name+" "+a.Class, b.Name+" "+b.Class)
	})
	return out
}

// preamble is true for the opcodes of the module's sections before its
// types: capabilities through annotations.
func preamble(o uint32) bool {
	switch o {
	case 17, 10, 11, opMemoryModel, opEntryPoint, 16, 331, 7, 2, 3, 4, opName, 6, 330,
		opDecorate, opMemberDecorate, 73, 74, 75, 332, 5632, 5633:
		return true
	}
	return false
}

func terminator(o uint32) bool {
	return o >= 249 && o <= 255 || o == 4416 // branches, switch, kill, returns, unreachable, terminate
}

// storageOf is the storage class of the pointer an instruction reads or
// writes through, or storageUnknown.
func storageOf(in []uint32, typeOf, ptrStorage map[uint32]uint32) uint32 {
	var ptr uint32
	switch o := op(in); {
	case o == opStore || o == 63 || o == 228 || o == 5360: // store, copy, atomic store, coopmat store
		ptr = in[1]
	case o == opLoad || o >= 65 && o <= 68 || o >= 227 && o <= 242 || o == 5359: // load, access chains, array length, atomics, coopmat load
		ptr = in[3]
	default:
		return storageUnknown
	}
	if s, ok := ptrStorage[typeOf[ptr]]; ok {
		return s
	}
	return storageUnknown
}

func glsl450Name(n uint32) string {
	if s, ok := glsl450Names[n]; ok {
		return s
	}
	return fmt.Sprintf("#%d", n)
}

// Profile is what one run executed: every block's count times its tally.
type Profile struct {
	Invocations uint64 // executions of the entry point's first block
	Total       uint64 // instructions executed (see Block for what counts)
	ByClass     []Tally
	ByOp        []Tally // most executed first
}

// Profile reads the counter buffer of a run (one uint32 a block, as
// downloaded) into a profile. Counters wrap at 2^32: keep a counted run
// small enough that no block runs that often.
func (c *Counted) Profile(counts []uint32) (*Profile, error) {
	if len(counts) < len(c.Blocks) {
		return nil, fmt.Errorf("spirv: %d counters for %d blocks", len(counts), len(c.Blocks))
	}
	p := &Profile{Invocations: uint64(counts[c.Entry])}
	byOp, byClass := tallies{}, tallies{}
	for k, b := range c.Blocks {
		for _, t := range b.Ops {
			n := t.N * uint64(counts[k])
			if n == 0 {
				continue
			}
			p.Total += n
			byOp.add(t.Name, t.Class, n)
			byClass.add(t.Class, t.Class, n)
		}
	}
	p.ByOp, p.ByClass = byOp.sorted(true), byClass.sorted(true)
	return p, nil
}

// Format prints the profile per unit (invocations when per is 0, else per
// elements of work, e.g. input elements), with the top opcodes.
func (p *Profile) Format(w io.Writer, per uint64, unit string, top int) {
	if per == 0 {
		per, unit = max(p.Invocations, 1), "invocation"
	}
	f := func(n uint64) float64 { return float64(n) / float64(per) }
	fmt.Fprintf(w, "SPIR-V instructions executed: %d over %d invocations, %.2f per %s\n", p.Total, p.Invocations, f(p.Total), unit)
	var cls []string
	for _, t := range p.ByClass {
		cls = append(cls, fmt.Sprintf("%s %.2f", t.Name, f(t.N)))
	}
	fmt.Fprintf(w, "  by class, per %s: %s\n", unit, strings.Join(cls, ", "))
	for k, t := range p.ByOp {
		if k == top {
			fmt.Fprintf(w, "  (%d more opcodes)\n", len(p.ByOp)-top)
			break
		}
		fmt.Fprintf(w, "  %8.3f  %-34s %s\n", f(t.N), t.Name, t.Class)
	}
}

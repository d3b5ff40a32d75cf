// Package spirv reads SPIR-V modules as instruction words and rewrites them
// for measurement: Instrument adds a counter a basic block, so that one run
// of a shader on any Vulkan driver says how many SPIR-V instructions each
// invocation executed, by opcode (the instruction counts issue 12 asks for
// beside the SASS ones; the driver's own compiler still decides what runs).
package spirv

import (
	"encoding/binary"
	"fmt"
)

// Magic is the first word of a SPIR-V module (little-endian here).
const Magic = 0x07230203

// Module is a parsed module: the header words and the instructions, each
// the whole of its words (word 0: word count << 16 | opcode).
type Module struct {
	Version   uint32
	Generator uint32
	Bound     uint32
	Schema    uint32
	Insts     [][]uint32
}

// Parse splits a SPIR-V binary into instructions.
func Parse(code []byte) (*Module, error) {
	if len(code)%4 != 0 || len(code) < 20 {
		return nil, fmt.Errorf("spirv: %d bytes is not a module (a whole number of words, 5 at least)", len(code))
	}
	w := make([]uint32, len(code)/4)
	for k := range w {
		w[k] = binary.LittleEndian.Uint32(code[4*k:])
	}
	if w[0] != Magic {
		return nil, fmt.Errorf("spirv: magic %#08x, want %#08x (a little-endian SPIR-V module)", w[0], Magic)
	}
	m := &Module{Version: w[1], Generator: w[2], Bound: w[3], Schema: w[4]}
	for at := 5; at < len(w); {
		n := int(w[at] >> 16)
		if n == 0 || at+n > len(w) {
			return nil, fmt.Errorf("spirv: instruction at word %d (%s) has word count %d, %d words left", at, OpName(w[at]&0xFFFF), n, len(w)-at)
		}
		m.Insts = append(m.Insts, w[at:at+n:at+n])
		at += n
	}
	return m, nil
}

// Bytes encodes the module.
func (m *Module) Bytes() []byte {
	n := 5
	for _, in := range m.Insts {
		n += len(in)
	}
	out := make([]byte, 0, 4*n)
	for _, v := range []uint32{Magic, m.Version, m.Generator, m.Bound, m.Schema} {
		out = binary.LittleEndian.AppendUint32(out, v)
	}
	for _, in := range m.Insts {
		for _, v := range in {
			out = binary.LittleEndian.AppendUint32(out, v)
		}
	}
	return out
}

// newID hands out the next result id.
func (m *Module) newID() uint32 {
	id := m.Bound
	m.Bound++
	return id
}

// op is an instruction's opcode.
func op(in []uint32) uint32 { return in[0] & 0xFFFF }

// inst builds an instruction from its opcode and operands.
func inst(opcode uint32, operands ...uint32) []uint32 {
	return append([]uint32{uint32(len(operands)+1)<<16 | opcode}, operands...)
}

// literalString reads a literal string operand starting at words[0].
func literalString(words []uint32) string {
	var b []byte
	for _, v := range words {
		for s := 0; s < 32; s += 8 {
			c := byte(v >> s)
			if c == 0 {
				return string(b)
			}
			b = append(b, c)
		}
	}
	return string(b)
}

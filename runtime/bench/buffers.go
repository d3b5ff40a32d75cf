package bench

import (
	"encoding/binary"
	"math"
	"math/rand/v2"

	kruntime "github.com/kgen-dev/kgen/runtime"
	"github.com/kgen-dev/kgen/runtime/ref"
)

// rotateTarget is the bytes one timed pass touches at least by default:
// well past the H200's 50 MB L2, so every launch streams from memory.
const rotateTarget = 512 << 20

// maxCopies bounds the copies a pass rotates over: a launch is timed per
// copy, and on Vulkan each copy of each buffer is its own allocation.
const maxCopies = 64

// copiesFor is how many copies of a launch's in and out buffers (perCopy
// bytes together) make a pass touch at least target bytes (0: 512 MiB),
// between 1 and maxCopies.
func copiesFor(perCopy int64, target int) int {
	if target <= 0 {
		target = rotateTarget
	}
	n := (int64(target) + perCopy - 1) / max(perCopy, 1)
	return int(min(max(n, 1), maxCopies))
}

// allocSize is what a planned buffer of n bytes is allocated as: at least
// 16 bytes (a contract buffer may be empty, e.g. the scale of an unscaled
// dtype) and a whole number of 16-byte words, so it can be zeroed by words.
func allocSize(n int) int { return max((n+15)&^15, 16) }

// mem is a timer's device memory.
type mem[B comparable] interface {
	alloc(n int) (B, error)
	upload(b B, data []byte) error
	zero(b B, n int) error // n: the allocation's size
	free(b B)
}

// held is one contract buffer a timer holds: the rotated copies of an in or
// out buffer, or the one copy of a scratch buffer.
type held[B comparable] struct {
	name   string
	dir    string
	size   int    // allocated bytes per copy
	fill   string // what an in buffer's copies hold (FillOf)
	copies []B
}

// pool holds the buffers of the launches a timer times, one rule for every
// family: each in and out buffer of the launch contract has copies enough
// that a pass of one launch per copy touches at least target bytes (at most
// maxCopies); each scratch buffer has one copy, zeroed when its contract
// says zero: true (when allocated and again for each new op; the kernels
// leave it zero after each launch). In buffers hold random data (fillData).
// Copies are kept across ops whose buffer has the same size and contents
// (a suite's token counts of one layer keep their weights: filling
// gigabytes would dominate the case otherwise); scratch buffers are kept
// while large enough (their size varies between variants of one op).
type pool[B comparable] struct {
	mem     mem[B]
	rng     *rand.Rand
	target  int
	op      kruntime.Op
	bufs    []held[B]
	n       int   // copies of the in and out buffers
	perCopy int64 // bytes of one copy of the in and out buffers (planned)
}

// FillOf names what an in buffer of the contract holds for dtype: values
// of the activation type for act elements, random bytes (fillData) for the
// rest; "" for out and scratch buffers, which are not filled.
func FillOf(b kruntime.PlannedBuffer, dtype string) string {
	switch {
	case b.Dir != "in":
		return ""
	case b.Elem == "act":
		return "act " + dtypeOf(dtype).Act
	}
	return "bytes"
}

// fillData is n bytes of what fill names: "act T" finite values of element
// type T (ActValues), else random bytes masked finite (RandomBytes).
func fillData(rng *rand.Rand, fill string, n int) []byte {
	if len(fill) > 4 && fill[:4] == "act " {
		if b := ActValues(rng, fill[4:], n); b != nil {
			return b
		}
	}
	return RandomBytes(rng, n)
}

// prepare makes the pool hold the buffers of launch l.
func (p *pool[B]) prepare(l *kruntime.Launch) error {
	fills := make([]string, len(l.Buffers))
	for i, b := range l.Buffers {
		fills[i] = FillOf(b, l.Op.Dtype)
	}
	return p.prepareBuffers(l.Op, l.Buffers, fills)
}

// prepareBuffers makes the pool hold bufs, for op, each in buffer filled
// with what fills names (FillOf).
func (p *pool[B]) prepareBuffers(op kruntime.Op, bufs []kruntime.PlannedBuffer, fills []string) error {
	newOp := p.op != op || p.bufs == nil
	p.op = op
	var perCopy int64
	for _, b := range bufs {
		if b.Dir != "scratch" {
			perCopy += int64(b.Size)
		}
	}
	p.perCopy = perCopy
	p.n = copiesFor(perCopy, p.target)
	for i := len(bufs); i < len(p.bufs); i++ { // another contract's buffers
		p.release(&p.bufs[i])
	}
	p.bufs = append(p.bufs[:min(len(p.bufs), len(bufs))], make([]held[B], max(0, len(bufs)-len(p.bufs)))...)
	for i, b := range bufs {
		h := &p.bufs[i]
		size, fill := allocSize(b.Size), fills[i]
		if h.name != b.Name || h.dir != b.Dir {
			p.release(h)
			h.name, h.dir = b.Name, b.Dir
		}
		if b.Dir == "scratch" {
			if len(h.copies) == 1 && h.size >= size {
				if newOp && b.Zero {
					if err := p.mem.zero(h.copies[0], h.size); err != nil {
						return err
					}
				}
				continue
			}
			p.release(h)
			if err := p.grow(h, size, "", 1); err != nil {
				return err
			}
			if b.Zero {
				if err := p.mem.zero(h.copies[0], h.size); err != nil {
					return err
				}
			}
			continue
		}
		if h.size != size || h.fill != fill {
			p.release(h)
		}
		for len(h.copies) > p.n {
			p.mem.free(h.copies[len(h.copies)-1])
			h.copies = h.copies[:len(h.copies)-1]
		}
		if err := p.grow(h, size, fill, p.n); err != nil {
			return err
		}
	}
	return nil
}

// grow adds copies of size bytes to h up to n, filled with fill (one
// random buffer uploaded to each new copy).
func (p *pool[B]) grow(h *held[B], size int, fill string, n int) error {
	h.size, h.fill = size, fill
	var data []byte
	for len(h.copies) < n {
		b, err := p.mem.alloc(size)
		if err != nil {
			return err
		}
		h.copies = append(h.copies, b)
		if fill == "" {
			continue
		}
		if data == nil {
			data = fillData(p.rng, fill, size)
		}
		if err := p.mem.upload(b, data); err != nil {
			return err
		}
	}
	return nil
}

// release frees h's copies.
func (p *pool[B]) release(h *held[B]) {
	for _, b := range h.copies {
		p.mem.free(b)
	}
	h.copies, h.size, h.fill = nil, 0, ""
}

// close frees every buffer.
func (p *pool[B]) close() {
	for i := range p.bufs {
		p.release(&p.bufs[i])
	}
	p.bufs, p.op = nil, kruntime.Op{}
}

// buffers are launch i's buffers in contract order: copy i of each in and
// out buffer, the scratch buffers.
func (p *pool[B]) buffers(i int) []B {
	out := make([]B, len(p.bufs))
	for j, h := range p.bufs {
		out[j] = h.copies[min(i, len(h.copies)-1)]
	}
	return out
}

// sizes are the held sizes in contract order (for Launch.CheckBuffers).
func (p *pool[B]) sizes() []int {
	out := make([]int, len(p.bufs))
	for j, h := range p.bufs {
		out[j] = h.size
	}
	return out
}

// rotated is the bytes one pass touches: the planned in and out bytes of
// every copy.
func (p *pool[B]) rotated() int64 { return int64(p.n) * p.perCopy }

// RandomBytes is n random bytes, each masked to 0x3F: never all zero, and
// every f32, f16 and bf16 they encode finite and positive, every byte a
// finite e4m3.
func RandomBytes(rng *rand.Rand, n int) []byte {
	buf := make([]byte, n+7)
	for i := 0; i < n; i += 8 {
		binary.LittleEndian.PutUint64(buf[i:], rng.Uint64()&0x3F3F3F3F3F3F3F3F)
	}
	return buf[:n]
}

// ActValues is n bytes of activations of element type typ (f32, f16,
// bf16): finite values of both signs, normal f32 over a spread of
// magnitudes (2^-6..2^5 times a normal deviate) rounded to typ, never all
// zero, a 4 MiB pattern repeated; nil for another type.
func ActValues(rng *rand.Rand, typ string, n int) []byte {
	var put func(b []byte, f float32)
	size := 2
	switch typ {
	case "f32":
		size, put = 4, func(b []byte, f float32) { binary.LittleEndian.PutUint32(b, math.Float32bits(f)) }
	case "f16":
		put = func(b []byte, f float32) { binary.LittleEndian.PutUint16(b, ref.F32ToF16(f)) }
	case "bf16":
		put = func(b []byte, f float32) { binary.LittleEndian.PutUint16(b, ref.F32ToBF16(f)) }
	default:
		return nil
	}
	chunk := make([]byte, min(n, 4<<20)/size*size)
	for i := 0; i+size <= len(chunk); i += size {
		put(chunk[i:], float32(rng.NormFloat64()*math.Exp2(float64(rng.IntN(12)-6))))
	}
	out := make([]byte, n)
	for off := 0; off < n && len(chunk) > 0; off += len(chunk) {
		copy(out[off:], chunk)
	}
	return out
}

package bench

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/kgen-dev/kgen/generated"
	kruntime "github.com/kgen-dev/kgen/runtime"
	"github.com/kgen-dev/kgen/runtime/ref"
	"github.com/kgen-dev/kgen/runtime/table"
)

// fakeMem is device memory as Go byte slices, by id.
type fakeMem struct {
	next    int
	live    map[int][]byte
	uploads map[int]int
	zeroed  map[int]int
}

func newFakeMem() *fakeMem {
	return &fakeMem{live: map[int][]byte{}, uploads: map[int]int{}, zeroed: map[int]int{}}
}

func (m *fakeMem) alloc(n int) (int, error) {
	m.next++
	b := make([]byte, n)
	for i := range b {
		b[i] = 0xA5 // not zero: zeroing must be explicit
	}
	m.live[m.next] = b
	return m.next, nil
}

func (m *fakeMem) upload(id int, data []byte) error {
	if len(data) != len(m.live[id]) {
		panic("upload size")
	}
	copy(m.live[id], data)
	m.uploads[id]++
	return nil
}

func (m *fakeMem) zero(id int, n int) error {
	if n != len(m.live[id]) {
		panic("zero size")
	}
	clear(m.live[id])
	m.zeroed[id]++
	return nil
}

func (m *fakeMem) free(id int) {
	if m.live[id] == nil {
		panic("double free")
	}
	delete(m.live, id)
}

func variant(t *testing.T, name string) *table.Variant {
	t.Helper()
	for i := range generated.Variants {
		v := &generated.Variants[i]
		if v.Backend == "hip" && v.Arch == "sm90" && v.Name == name {
			return v
		}
	}
	t.Fatalf("no sm90 variant %s", name)
	return nil
}

func plan(t *testing.T, name string, op kruntime.Op) *kruntime.Launch {
	t.Helper()
	l, err := kruntime.Plan(variant(t, name), sm90(t), op)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// TestPool: one rule for every family. In and out buffers have copies
// enough for 512 MiB a pass (at most 64), scratch one copy, zero: true
// scratch zeroed once per op; weights survive a change of token count;
// in buffers hold finite data of their element type.
func TestPool(t *testing.T) {
	m := newFakeMem()
	p := &pool[int]{mem: m, rng: rand.New(rand.NewPCG(1, 2))}
	op := kruntime.Op{Family: "gemv", Dtype: "bf16", M: 1, N: 4096, K: 4096}
	l := plan(t, "gemv_bf16_p8_r1_t1_wg256", op)
	if err := p.prepare(l); err != nil {
		t.Fatal(err)
	}
	per := int64(4096*4096*2 + 4096*2 + 0 + 4096*4) // W, X, scale (none), Y
	if p.perCopy != per || p.n != int((512<<20+per-1)/per) || p.n != 16 || p.rotated() != 16*per {
		t.Fatalf("per copy %d, %d copies", p.perCopy, p.n)
	}
	if err := l.CheckBuffers(p.sizes()); err != nil {
		t.Fatal(err)
	}
	b0, b1 := p.buffers(0), p.buffers(1)
	for j, b := range l.Buffers {
		if (b.Dir == "scratch") != (b0[j] == b1[j]) {
			t.Errorf("%s (%s): copy 0 %d, copy 1 %d", b.Name, b.Dir, b0[j], b1[j])
		}
	}
	w, x, y, counter := b0[0], b0[1], b0[3], b0[5]
	if m.uploads[w] != 1 || m.uploads[x] != 1 || m.uploads[y] != 0 || m.zeroed[counter] != 1 || m.zeroed[b0[4]] != 0 {
		t.Errorf("uploads W %d X %d Y %d, zeroed counter %d partial %d", m.uploads[w], m.uploads[x], m.uploads[y], m.zeroed[counter], m.zeroed[b0[4]])
	}
	wb := m.live[w]
	for i, c := range wb {
		if c > 0x3F {
			t.Fatalf("W byte %d is %#x: random bytes are masked to 0x3F", i, c)
		}
	}
	if string(wb) == string(make([]byte, len(wb))) || string(wb) != string(m.live[b1[0]]) {
		t.Errorf("W is zero, or its copies differ")
	}
	neg := 0
	for i := 0; i < 4096; i++ {
		f := ref.BF16ToF32(binary.LittleEndian.Uint16(m.live[x][2*i:]))
		if math.IsNaN(float64(f)) || math.IsInf(float64(f), 0) {
			t.Fatalf("X[%d] = %v", i, f)
		}
		if f < 0 {
			neg++
		}
	}
	if neg < 1000 || neg > 3000 {
		t.Errorf("%d of 4096 activations negative", neg)
	}

	// The same layer at 2 tokens: weights kept, X and Y new, the counter
	// zeroed again.
	wcopies := p.bufs[0].copies
	l2 := plan(t, "gemv_bf16_p8_r1_t2_wg256", kruntime.Op{Family: "gemv", Dtype: "bf16", M: 2, N: 4096, K: 4096})
	if err := p.prepare(l2); err != nil {
		t.Fatal(err)
	}
	c0 := p.buffers(0)
	if c0[0] != w || len(p.bufs[0].copies) != p.n || p.n != 16 || m.uploads[w] != 1 {
		t.Errorf("weights not kept: W %d (was %d), %d copies, %d uploads", c0[0], w, len(p.bufs[0].copies), m.uploads[w])
	}
	for i := range wcopies {
		if p.bufs[0].copies[i] != wcopies[i] {
			t.Errorf("W copy %d replaced", i)
		}
	}
	if c0[1] == x || m.live[x] != nil || m.zeroed[c0[5]] != 2 && c0[5] == counter {
		t.Errorf("X %d (was %d, live %v), counter zeroed %d", c0[1], x, m.live[x] != nil, m.zeroed[c0[5]])
	}
	// A split-K variant of the same op needs more partial sums: regrown;
	// the counter, large enough, is not zeroed again (same op).
	z := m.zeroed[c0[5]]
	l3 := plan(t, "gemv_bf16_p4_r1_t2_sk4", l2.Op)
	if err := p.prepare(l3); err != nil {
		t.Fatal(err)
	}
	if err := l3.CheckBuffers(p.sizes()); err != nil {
		t.Fatal(err)
	}
	c3 := p.buffers(0)
	if c3[4] == c0[4] || c3[5] != c0[5] || m.zeroed[c3[5]] != z || c3[0] != w {
		t.Errorf("partial %d (was %d), counter %d (was %d) zeroed %d times", c3[4], c0[4], c3[5], c0[5], m.zeroed[c3[5]])
	}

	// Another family: its two buffers, 64 copies at most, f32 inputs.
	l4 := plan(t, "quant_q8k_f32_sg", kruntime.Op{Family: "quant_q8k", Dtype: "f32", M: 1, N: 1, K: 256})
	if err := p.prepare(l4); err != nil {
		t.Fatal(err)
	}
	if len(p.bufs) != 2 || p.n != 64 || p.perCopy != 1024+292 || len(m.live) != 2*64 {
		t.Errorf("%d buffers, %d copies of %d bytes, %d allocations", len(p.bufs), p.n, p.perCopy, len(m.live))
	}
	for i := 0; i < 256; i++ {
		f := math.Float32frombits(binary.LittleEndian.Uint32(m.live[p.buffers(63)[0]][4*i:]))
		if math.IsNaN(float64(f)) || math.IsInf(float64(f), 0) || f == 0 {
			t.Fatalf("X[%d] = %v", i, f)
		}
	}
	// A target of 1 MiB: 797 copies wanted, 64 kept.
	p.target = 1 << 20
	l5 := plan(t, "quant_q8k_f32_sg", kruntime.Op{Family: "quant_q8k", Dtype: "f32", M: 8, N: 1, K: 4096})
	if err := p.prepare(l5); err != nil {
		t.Fatal(err)
	}
	if per := int64(8*4096*4 + 8*16*292); p.perCopy != per || p.n != int((1<<20+per-1)/per) || p.n != 7 || len(m.live) != 14 {
		t.Errorf("%d copies of %d bytes, %d allocations", p.n, p.perCopy, len(m.live))
	}
	p.close()
	if len(m.live) != 0 {
		t.Errorf("%d buffers left after close", len(m.live))
	}
}

func TestCopiesFor(t *testing.T) {
	for _, c := range []struct {
		per    int64
		target int
		want   int
	}{{1 << 30, 0, 1}, {512 << 20, 0, 1}, {512<<20 - 1, 0, 2}, {32 << 20, 0, 16}, {1 << 10, 0, 64}, {0, 0, 64}, {1 << 10, 4 << 10, 4}} {
		if got := copiesFor(c.per, c.target); got != c.want {
			t.Errorf("copiesFor(%d, %d) = %d, want %d", c.per, c.target, got, c.want)
		}
	}
}

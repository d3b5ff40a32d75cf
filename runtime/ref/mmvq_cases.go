package ref

import (
	"fmt"
	"math/rand/v2"
)

func init() { Register("mmvq", mmvqReference) }

// mmvqReference: W, N rows of random and crafted weight blocks of the
// dtype's weight format (RandomWeightBlocks), padded with zeros to its
// planned size (the kernels read aligned words); X, M rows of Q8_1 blocks
// (RandomQ8_1); Y = MMVQ, magnitudes MMVQ's.
func mmvqReference(p Problem, rng *rand.Rand) (*Expected, error) {
	if err := p.need("W", "X"); err != nil {
		return nil, err
	}
	f, ok := WeightFormats[p.Weight]
	if !ok || p.Act != "q8_1" {
		return nil, fmt.Errorf("mmvq takes q4_k, q6_k or q8_0 weights and q8_1 activations, not %s x %s", p.Weight, p.Act)
	}
	if p.K%f.Block != 0 || p.M < 1 || p.N < 1 {
		return nil, fmt.Errorf("mmvq %s: M=%d N=%d K=%d: K must be a multiple of %d", p.Weight, p.M, p.N, p.K, f.Block)
	}
	w, kinds, err := RandomWeightBlocks(rng, p.Weight, p.N*p.K/f.Block)
	if err != nil {
		return nil, err
	}
	x, err := RandomQ8_1(rng, p.M, p.K)
	if err != nil {
		return nil, err
	}
	want, mag, err := MMVQ(p.Weight, w, x, p.M, p.N, p.K)
	if err != nil {
		return nil, err
	}
	wb, _ := p.Buffer("W")
	if wb.Size < len(w) {
		return nil, fmt.Errorf("mmvq: buffer W is planned %d bytes, the weights take %d", wb.Size, len(w))
	}
	w = append(w, make([]byte, wb.Size-len(w))...)
	n, perRow := p.N, p.K/f.Block
	index := func(i int) string {
		row := i % n
		counts := map[string]int{}
		for _, k := range kinds[row*perRow : (row+1)*perRow] {
			counts[k]++
		}
		return fmt.Sprintf("t=%d n=%d (row blocks %v)", i/n, row, counts)
	}
	return &Expected{Inputs: map[string][]byte{"W": w, "X": x}, Want: want, Mag: mag, Index: index}, nil
}

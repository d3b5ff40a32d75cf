package runtime

import (
	"errors"
	"strings"
	"testing"
)

// TestSelectChain: the mmvq op's chain is quant_q8_1's launch, then its
// own, both Select's picks; the quantizer's Y is exactly mmvq's X.
func TestSelectChain(t *testing.T) {
	t.Setenv(TuneCacheEnv, "off")
	t.Setenv(ForceEnv, "")
	for _, arch := range []string{"sm90", "gfx1200", "nvidia", "llvmpipe"} {
		dev, err := ArchDevice(arch)
		if err != nil {
			t.Fatal(err)
		}
		for _, dt := range []string{"q4_k", "q6_k", "q8_0"} {
			for _, act := range []string{"f32", "f16", "bf16"} {
				op := Op{Family: "mmvq", Dtype: dt, M: 3, N: 4096, K: 14336}
				c, err := SelectChain(dev, op, act)
				if err != nil {
					t.Fatalf("%s %s %s: %v", arch, op, act, err)
				}
				if len(c.Steps) != 2 || c.Consumer() != &c.Steps[1] {
					t.Fatalf("%d steps", len(c.Steps))
				}
				p, m := c.Steps[0], c.Steps[1]
				want := Op{Family: "quant_q8_1", Dtype: act, M: 3, N: 1, K: 14336}
				if p.Op != want || p.Feeds != "X" || m.Op != op || m.Feeds != "" || c.Act != act {
					t.Errorf("steps %+v %+v", p.Op, m.Op)
				}
				for _, s := range c.Steps {
					ch, err := Select(dev, s.Op)
					if err != nil {
						t.Fatal(err)
					}
					if s.Choice.Variant != ch.Variant || s.Launch.Variant != ch.Variant || s.Launch.Op != s.Op {
						t.Errorf("%s: chain picked %s, Select %s", s.Op, s.Choice.Variant.Name, ch.Variant.Name)
					}
				}
				if y, x := p.Launch.Output(), m.Launch.Buffer("X"); y.Size != x.Size || y.Size != 3*14336/32*36 {
					t.Errorf("Y %d bytes, X %d", y.Size, x.Size)
				}
			}
		}
	}
}

// TestSelectChainForce: KGEN_FORCE narrows the step of its family only.
func TestSelectChainForce(t *testing.T) {
	t.Setenv(TuneCacheEnv, "off")
	dev, _ := ArchDevice("sm90")
	op := Op{Family: "mmvq", Dtype: "q6_k", M: 1, N: 4096, K: 4096}
	for _, force := range []string{"quant_q8_1:tile=thread", "mmvq:tile=wg64"} {
		t.Setenv(ForceEnv, force)
		c, err := SelectChain(dev, op, "bf16")
		if err != nil {
			t.Fatal(err)
		}
		fam, val, _ := strings.Cut(force, ":")
		for _, s := range c.Steps {
			forced := s.Op.Family == fam
			if got := s.Choice.Variant.Param("tile") == strings.TrimPrefix(val, "tile="); got != forced || (s.Choice.Forced != "") != forced {
				t.Errorf("KGEN_FORCE=%s: step %s picked %s (forced %q)", force, s.Op.Family, s.Choice.Variant.Name, s.Choice.Forced)
			}
		}
	}
}

// TestSelectChainRefuses: a family without fed_by and an act the
// quantizer does not take are invalid ops; the consumer's own rules come
// first; a producer whose output is not exactly the buffer is refused.
func TestSelectChainRefuses(t *testing.T) {
	t.Setenv(TuneCacheEnv, "off")
	t.Setenv(ForceEnv, "")
	dev, _ := ArchDevice("sm90")
	op := Op{Family: "mmvq", Dtype: "q4_k", M: 1, N: 4096, K: 4096}
	for _, c := range []struct {
		op   Op
		act  string
		want string
	}{
		{Op{Family: "gemv", Dtype: "bf16", M: 1, N: 64, K: 64}, "f32", "gemv has no fed_by"},
		{op, "q8_1", `act "q8_1": the dtype of the values quant_q8_1 converts into mmvq's X; allowed: bf16, f16, f32`},
		{op, "", "act not given"},
	} {
		_, err := SelectChain(dev, c.op, c.act)
		if !errors.Is(err, ErrInvalidOp) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %q: %v, want an invalid op saying %q", c.op, c.act, err, c.want)
		}
	}
	_, err := SelectChain(dev, Op{Family: "mmvq", Dtype: "q4_k", M: 9, N: 64, K: 256}, "f32")
	var ne *NotEligibleError
	if !errors.As(err, &ne) {
		t.Errorf("m=9: %v, want not eligible", err)
	}
	_, err = SelectChain(dev, Op{Family: "mmvq", Dtype: "q4_k", M: 1, N: 64, K: 100}, "f32")
	var nv *NoVariantError
	if !errors.As(err, &nv) {
		t.Errorf("k=100: %v, want no variant", err)
	}

	// A producer op of another k writes another size: refused.
	c, err := SelectChain(dev, op, "f32")
	if err != nil {
		t.Fatal(err)
	}
	fd := FeedsOf("mmvq")[0]
	bad := c.Steps[0].Op
	bad.K += 32
	pl, err := Plan(c.Steps[0].Choice.Variant, dev, bad)
	if err != nil {
		t.Fatal(err)
	}
	err = checkFeed(fd, pl, c.Consumer().Launch)
	if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "fed_by X: X is 4608 bytes for mmvq q4_k m=1 n=4096 k=4096; producer quant_q8_1_f32_") ||
		!strings.Contains(err.Error(), "writes 4644 bytes of Y") {
		t.Errorf("size mismatch: %v", err)
	}
	// A feed expression the op makes zero.
	fd.M = "m - 1"
	if _, err := ProducerOp(fd, dev, op, "f32"); !errors.Is(err, ErrInvalidOp) {
		t.Errorf("m - 1 = 0: %v", err)
	}
}

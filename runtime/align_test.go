package runtime

import (
	"errors"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/kgen-dev/kgen/generated"
)

// TestSelectRefusesNegativeAlign: a negative Op.Align is an InvalidOpError
// from Select and SelectWith for every family and arch, before any rule is
// evaluated (the rules would read it as aligned: -4 % 4 == 0), and never a
// pick, a NotEligibleError or a NoVariantError. Align 0 and positive
// alignments still select.
func TestSelectRefusesNegativeAlign(t *testing.T) {
	for _, a := range generated.Archs {
		dev, err := ArchDevice(a.Name)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range generated.Families {
			for _, align := range []int{-1, -2, -4, -16, -(1 << 20), math.MinInt} {
				op := Op{Family: f.Name, Dtype: "f16", M: 1, N: 4096, K: 4096, Align: align}
				for name, sel := range map[string]func() (*Choice, error){
					"SelectWith": func() (*Choice, error) { return SelectWith(dev, op, nil) },
					"Select":     func() (*Choice, error) { return Select(dev, op) },
					"forced":     func() (*Choice, error) { return SelectWith(dev, op, ParseOverride(f.Name+":dtype=f16")) },
				} {
					ch, err := sel()
					var ie *InvalidOpError
					var ne *NotEligibleError
					var nv *NoVariantError
					if ch != nil || !errors.As(err, &ie) || !errors.Is(err, ErrInvalidOp) || errors.As(err, &ne) || errors.As(err, &nv) {
						t.Fatalf("%s %s on %s: choice %v, error %T %v; want an InvalidOpError", name, op, a.Name, ch, err, err)
					}
					if ie.Field != "align" || ie.Op != op {
						t.Errorf("%s: %#v", name, ie)
					}
					for _, want := range []string{"invalid op", "align is " + strconv.Itoa(align), "0 for offset 0"} {
						if !strings.Contains(err.Error(), want) {
							t.Errorf("%s: error %q lacks %q", name, err, want)
						}
					}
				}
			}
		}
	}
	// Refused before the family is even looked up: no rule sees it.
	if _, err := SelectWith(Device{}, Op{Family: "no_such_family", Align: -8}, nil); !errors.Is(err, ErrInvalidOp) {
		t.Errorf("unknown family, align -8: %v, want ErrInvalidOp", err)
	}
	if err := (Op{Align: -1}).Validate(); !errors.Is(err, ErrInvalidOp) {
		t.Errorf("Validate(-1) = %v", err)
	}
	dev, _ := ArchDevice("gfx1200")
	for _, align := range []int{0, 1, 8, 1 << 20, 1 << 30} {
		op := Op{Family: "gemv", Dtype: "f16", M: 1, N: 4096, K: 4096, Align: align}
		if err := op.Validate(); err != nil {
			t.Errorf("Validate(%d) = %v", align, err)
		}
		if _, err := SelectWith(dev, op, nil); errors.Is(err, ErrInvalidOp) {
			t.Errorf("align %d: %v", align, err)
		}
	}
	if s := (Op{Family: "gemv", Dtype: "f16", M: 1, N: 2, K: 3, Align: -4}).String(); !strings.HasSuffix(s, " align=-4") {
		t.Errorf("Op.String hides a negative align: %q", s)
	}
}

package runtime

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kgen-dev/kgen/generated"
)

// TestCSelectAgrees compiles generated/kgen_select.h with gcc and checks
// that its kg_select picks what Select picks on 10,000 random queries over
// every family, arch and device class, dtype, token count, shape and
// alignment.
func TestCSelectAgrees(t *testing.T) {
	gcc, err := exec.LookPath("gcc")
	if err != nil {
		t.Fatal("gcc is needed for the C header agreement test: apt-get install gcc")
	}
	bin := filepath.Join(t.TempDir(), "cselect")
	out, err := exec.Command(gcc, "-std=c99", "-O1", "-Wall", "-Werror", "-I", "../generated", "testdata/cselect.c", "-o", bin).CombinedOutput()
	if err != nil {
		t.Fatalf("gcc: %v\n%s", err, out)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	if s := os.Getenv("KGEN_SEED"); s != "" {
		var seed uint64
		fmt.Sscan(s, &seed)
		rng = rand.New(rand.NewPCG(seed, 2))
	}
	dtypes := []string{"f32", "f16", "bf16", "fp8e4m3_bf16", "fp8e4m3_f16"}
	aligns := []int{0, 1, 2, 3, 4, 6, 8, 16}
	const queries = 10000
	var in bytes.Buffer
	var want []string
	var qs []string
	for i := 0; i < queries; i++ {
		a := generated.Archs[rng.IntN(len(generated.Archs))]
		op := Op{Family: "gemv", Dtype: dtypes[rng.IntN(len(dtypes))], M: rng.IntN(11), N: 1 + rng.IntN(300000), K: 1 + rng.IntN(30000), Align: aligns[rng.IntN(len(aligns))]}
		if rng.IntN(2) == 0 { // shapes the packs divide, as real layers have
			op.K = (op.K + 7) / 8 * 8
		}
		if f := rng.IntN(5); f >= 3 { // the quantizers: m rows (up to MoE sizes), n unused
			op.Family = []string{"quant_q8k", "quant_q8_1"}[f-3]
			op.M, op.N = rng.IntN(5000), 1
			if rng.IntN(4) != 0 {
				op.K = (op.K + 255) / 256 * 256
			}
		}
		dev, err := ArchDevice(a.Name)
		if err != nil {
			t.Fatal(err)
		}
		ch, err := SelectWith(dev, op, nil)
		var ne *NotEligibleError
		var nv *NoVariantError
		switch {
		case errors.As(err, &ne):
			want = append(want, "NOT_ELIGIBLE")
		case errors.As(err, &nv):
			want = append(want, "NO_VARIANT")
		case err != nil:
			t.Fatal(err)
		default:
			want = append(want, ch.Variant.Name)
		}
		q := fmt.Sprintf("%s %s %s %d %d %d %d", op.Family, a.Name, op.Dtype, op.M, op.N, op.K, op.Align)
		qs = append(qs, q)
		in.WriteString(q + "\n")
	}
	cmd := exec.Command(bin)
	cmd.Stdin = &in
	got, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(bytes.NewReader(got))
	i, kinds := 0, map[string]int{}
	for sc.Scan() {
		if i >= len(want) {
			t.Fatalf("C printed more answers than queries")
		}
		if g := strings.TrimSpace(sc.Text()); g != want[i] {
			t.Errorf("query %q: C picks %s, Go picks %s", qs[i], g, want[i])
		}
		switch want[i] {
		case "NOT_ELIGIBLE", "NO_VARIANT":
			kinds[want[i]]++
		default:
			kinds["picked"]++
		}
		i++
	}
	if i != queries {
		t.Fatalf("C answered %d of %d queries", i, queries)
	}
	if kinds["picked"] < queries/2 || kinds["NOT_ELIGIBLE"] == 0 {
		t.Fatalf("queries do not exercise both outcomes: %v", kinds)
	}
	t.Logf("C and Go agree on %d queries (%v)", queries, kinds)
}

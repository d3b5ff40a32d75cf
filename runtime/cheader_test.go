package runtime

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// cTool finds a compiler the header tests need; a missing one fails the
// test (CI must not pass by skipping them).
func cTool(t *testing.T, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		t.Fatalf("%s is needed to test generated/kgen_select.h: apt-get install gcc g++ clang-19 (make deps)", name)
	}
	return p
}

// cBuild compiles srcs with args into a binary and returns its path.
func cBuild(t *testing.T, compiler string, args []string, srcs ...string) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "a.out")
	all := append(append([]string{"-I", "../generated", "-I", "testdata/cheader"}, args...), srcs...)
	all = append(all, "-o", bin)
	out, err := exec.Command(cTool(t, compiler), all...).CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", compiler, strings.Join(all, " "), err, out)
	}
	return bin
}

var strict = []string{"-Wall", "-Wextra", "-Wpedantic", "-Werror"}

// TestCHeaderCompilesClean: a C11 and a C++17 unit calling every public
// entry point compile without a warning under -Wall -Wextra -Wpedantic
// -Werror with gcc and clang, and run; a program of two units includes
// the table once in C++17 (an inline variable) and in C with
// KGEN_SELECT_SHARED (and twice in plain C, one copy per unit).
func TestCHeaderCompilesClean(t *testing.T) {
	size := map[string]int64{}
	for _, c := range []struct {
		name, compiler string
		args           []string
		srcs           []string
	}{
		{"gcc-c11", "gcc", []string{"-std=c11", "-O1"}, []string{"testdata/cheader/use.c"}},
		{"clang-c11", "clang-19", []string{"-std=c11", "-O1"}, []string{"testdata/cheader/use.c"}},
		{"g++-c++17", "g++", []string{"-std=c++17", "-O1"}, []string{"testdata/cheader/use.cc"}},
		{"clang++-c++17", "clang++-19", []string{"-std=c++17", "-O1"}, []string{"testdata/cheader/use.cc"}},
		{"g++-c++17-two-units", "g++", []string{"-std=c++17", "-O1", "-DKG_TWO_UNITS"}, []string{"testdata/cheader/use.cc", "testdata/cheader/tu2.cc"}},
		{"gcc-c11-two-units", "gcc", []string{"-std=c11", "-O1", "-DKG_TWO_UNITS"}, []string{"testdata/cheader/use.c", "testdata/cheader/tu2.c"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			bin := cBuild(t, c.compiler, append(append([]string{}, strict...), c.args...), c.srcs...)
			if out, err := exec.Command(bin).CombinedOutput(); err != nil {
				t.Fatalf("%s: %v\n%s", bin, err, out)
			}
			if fi, err := os.Stat(bin); err == nil {
				size[c.name] = fi.Size()
			}
		})
	}
	// C with KGEN_SELECT_SHARED: one unit defines the tables.
	t.Run("gcc-c11-shared", func(t *testing.T) {
		dir := t.TempDir()
		gcc := cTool(t, "gcc")
		var objs []string
		for i, u := range []struct {
			src  string
			defs []string
		}{
			{"testdata/cheader/use.c", []string{"-DKGEN_SELECT_SHARED", "-DKGEN_SELECT_IMPLEMENTATION", "-DKG_TWO_UNITS"}},
			{"testdata/cheader/tu2.c", []string{"-DKGEN_SELECT_SHARED"}},
		} {
			obj := filepath.Join(dir, fmt.Sprintf("u%d.o", i))
			args := append(append(append([]string{"-std=c11", "-O1", "-c", "-I", "../generated", "-I", "testdata/cheader"}, strict...), u.defs...), u.src, "-o", obj)
			if out, err := exec.Command(gcc, args...).CombinedOutput(); err != nil {
				t.Fatalf("gcc %s: %v\n%s", strings.Join(args, " "), err, out)
			}
			objs = append(objs, obj)
		}
		bin := filepath.Join(dir, "a.out")
		if out, err := exec.Command(gcc, append(objs, "-o", bin)...).CombinedOutput(); err != nil {
			t.Fatalf("link: %v\n%s", err, out)
		}
		if out, err := exec.Command(bin).CombinedOutput(); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		fi, _ := os.Stat(bin)
		size["gcc-c11-shared"] = fi.Size()
	})
	one, two, shared := size["g++-c++17"], size["g++-c++17-two-units"], size["gcc-c11-shared"]
	twoC, oneC := size["gcc-c11-two-units"], size["gcc-c11"]
	if one == 0 || two == 0 || shared == 0 || oneC == 0 || twoC == 0 {
		t.Fatalf("missing sizes: %v", size)
	}
	table := twoC - oneC // plain C: the second unit's own copy
	t.Logf("binary sizes: %v (a C unit's copy of the tables: %d bytes)", size, table)
	if table < 100000 {
		t.Fatalf("two plain-C units are only %d bytes larger than one: the size check cannot tell copies apart", table)
	}
	if two-one > table/4 {
		t.Errorf("C++17: a second unit adds %d bytes (a copy of the tables is %d): the tables are not inline variables", two-one, table)
	}
	if shared-oneC > table/4 {
		t.Errorf("C with KGEN_SELECT_SHARED: %d bytes over one unit (a copy of the tables is %d)", shared-oneC, table)
	}
}

// TestCHeaderHostile calls every public entry point of the header with
// unknown archs (gfx1201, the segfault of issue 15), NULLs, huge and
// negative values, hostile devices and out-of-range variant indices,
// under AddressSanitizer and UndefinedBehaviorSanitizer (any report
// aborts): no crash, every answer a documented status, every launch
// within its documented bounds, kg_select_cached equal to kg_select.
func TestCHeaderHostile(t *testing.T) {
	bin := cBuild(t, "gcc", append([]string{"-std=c11", "-O1", "-g", "-fsanitize=address,undefined", "-fno-sanitize-recover=all", "-fno-omit-frame-pointer"}, strict...), "testdata/cheader_api.c")
	cmd := exec.Command(bin, "hostile")
	cmd.Env = append(os.Environ(), "ASAN_OPTIONS=detect_leaks=1:abort_on_error=0", "UBSAN_OPTIONS=print_stacktrace=1")
	out, err := cmd.CombinedOutput()
	if err != nil || !bytes.Contains(out, []byte("hostile ok:")) {
		t.Fatalf("hostile inputs: %v\n%s", err, out)
	}
	t.Logf("%s", bytes.TrimSpace(out))
}

// TestCVulkanClassAgrees: kg_vulkan_class picks the class VulkanClass picks
// for every vendor id and driver name of the classes, their mixtures and
// strangers (case, empty, none).
func TestCVulkanClassAgrees(t *testing.T) {
	bin := cBuild(t, "gcc", append([]string{"-std=c11", "-O1"}, strict...), "testdata/cheader_api.c")
	vendors := []uint32{0, 1, 0x1002, 0x10de, 0x8086, 0x10005, 0x13b5, 0xffffffff}
	drivers := []string{"-", "llvmpipe", "LLVMPIPE", "radv", "NVIDIA", "anv", "x"}
	var qs, want []string
	for _, v := range vendors {
		for _, d := range drivers {
			qs = append(qs, fmt.Sprintf("%x %s", v, d))
			name := d
			if d == "-" {
				name = ""
			}
			w := VulkanClass(v, name)
			if w == "" {
				w = "NONE"
			}
			want = append(want, w)
		}
	}
	cmd := exec.Command(bin, "vk")
	cmd.Stdin = strings.NewReader(strings.Join(qs, "\n") + "\n")
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Fields(string(out))
	if len(got) != len(qs) {
		t.Fatalf("%d answers to %d queries", len(got), len(qs))
	}
	for i := range qs {
		if got[i] != want[i] {
			t.Errorf("vendor/driver %s: C class %s, Go %s", qs[i], got[i], want[i])
		}
	}
}

var benchLine = regexp.MustCompile(`^bench (\S+) (\S+) .* candidates=(\d+) pick=(\S+) select_ns=(\d+) cached_ns=([\d.]+)$`)

// TestCSelectSpeed measures kg_select per call in C (-O2): plain, over the
// op's (family, arch, dtype) candidates, and through a host-owned kg_cache
// (the per-launch path). The cached call must stay under 2 us; the plain
// one is reported (it evaluates every candidate's rules and keys).
func TestCSelectSpeed(t *testing.T) {
	bin := cBuild(t, "gcc", []string{"-std=c11", "-O2"}, "testdata/cheader_api.c")
	out, err := exec.Command(bin, "bench").CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	sc := bufio.NewScanner(bytes.NewReader(out))
	n := 0
	for sc.Scan() {
		m := benchLine.FindStringSubmatch(sc.Text())
		if m == nil {
			t.Fatalf("unexpected line %q", sc.Text())
		}
		n++
		cached, _ := strconv.ParseFloat(m[6], 64)
		t.Logf("%s %s: %s candidates, kg_select %s ns, kg_select_cached %.0f ns (pick %s)", m[1], m[2], m[3], m[5], cached, m[4])
		if cached > 2000 {
			t.Errorf("%s %s: kg_select_cached takes %.0f ns, over the 2 us target", m[1], m[2], cached)
		}
	}
	if n == 0 {
		t.Fatalf("no measurements:\n%s", out)
	}
}

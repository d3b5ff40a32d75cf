package spirv

import (
	"bytes"
	"encoding/binary"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kgen-dev/kgen/runtime/internal/vktest"
	"github.com/kgen-dev/kgen/runtime/vulkan"
)

// TestMain selects lavapipe unless the caller chose a driver.
func TestMain(m *testing.M) {
	vktest.PreferLavapipe()
	os.Exit(m.Run())
}

func tool(t *testing.T, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		t.Fatalf("%s not found: install it (apt-get install glslang-tools spirv-tools)", name)
	}
	return p
}

func compileGLSL(t *testing.T, src string) []byte {
	t.Helper()
	out := filepath.Join(t.TempDir(), "out.spv")
	cmd := exec.Command(tool(t, "glslangValidator"), "-V", "--target-env", "vulkan1.2", "--stdin", "-S", "comp", "-o", out)
	cmd.Stdin = strings.NewReader(src)
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("glslangValidator: %v\n%s", err, msg)
	}
	spv, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return spv
}

// validate runs spirv-val on a module.
func validate(t *testing.T, code []byte) {
	t.Helper()
	f := filepath.Join(t.TempDir(), "m.spv")
	if err := os.WriteFile(f, code, 0o644); err != nil {
		t.Fatal(err)
	}
	if msg, err := exec.Command(tool(t, "spirv-val"), "--target-env", "vulkan1.2", f).CombinedOutput(); err != nil {
		t.Fatalf("spirv-val: %v\n%s", err, msg)
	}
}

func openDevice(t *testing.T) *vulkan.Device {
	t.Helper()
	inst, err := vulkan.Open()
	if err != nil {
		t.Fatalf("vulkan.Open: %v (install mesa-vulkan-drivers for lavapipe)", err)
	}
	t.Cleanup(inst.Close)
	index := 0
	for _, info := range inst.Devices() {
		if info.DriverName == "llvmpipe" {
			index = info.Index
		}
	}
	d, err := inst.OpenDevice(index)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(d.Close)
	return d
}

// run dispatches code once with the given buffers (sizes in bytes, zero
// filled) and returns their contents afterwards.
func run(t *testing.T, d *vulkan.Device, code []byte, sizes []int, groups uint32) [][]byte {
	t.Helper()
	p, err := d.NewPipeline(code, "main", nil, len(sizes), 0)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Destroy()
	var bufs []*vulkan.Buffer
	for _, n := range sizes {
		b, err := d.NewBuffer(n)
		if err != nil {
			t.Fatal(err)
		}
		defer b.Free()
		if err := b.Fill(0); err != nil {
			t.Fatal(err)
		}
		bufs = append(bufs, b)
	}
	if err := d.Run(vulkan.Dispatch{Pipeline: p, Buffers: bufs, Groups: [3]uint32{groups, 1, 1}}); err != nil {
		t.Fatal(err)
	}
	var out [][]byte
	for k, b := range bufs {
		data := make([]byte, sizes[k])
		if err := b.Download(data); err != nil {
			t.Fatal(err)
		}
		out = append(out, data)
	}
	return out
}

func words(b []byte) []uint32 {
	w := make([]uint32, len(b)/4)
	for k := range w {
		w[k] = binary.LittleEndian.Uint32(b[4*k:])
	}
	return w
}

// The loop body of invocation i runs i times and the odd branch runs for
// odd i: 8 invocations give counts 8 (entry), 28 (loop body), 4 (odd),
// and the profile multiplies them by what each block holds.
const loopShader = `#version 450
layout(local_size_x = 4) in;
layout(set = 0, binding = 0) buffer B { uint x[]; };
uint twice(uint v) { return v + v; }
void main() {
	uint i = gl_GlobalInvocationID.x;
	uint s = 0u;
	for (uint k = 0u; k < i; k++) { s += k * 3u; }
	if ((i & 1u) == 1u) { s ^= twice(7u); }
	x[i] = s;
}`

func TestInstrumentCountsBlocks(t *testing.T) {
	code := compileGLSL(t, loopShader)
	c, err := Instrument(code, "main", 1)
	if err != nil {
		t.Fatal(err)
	}
	validate(t, c.Code)
	d := openDevice(t)
	plain := run(t, d, code, []int{32}, 2)
	got := run(t, d, c.Code, []int{32, 4 * len(c.Blocks)}, 2)
	if !bytes.Equal(plain[0], got[0]) {
		t.Fatalf("the instrumented shader computed %v, the original %v", words(got[0]), words(plain[0]))
	}
	for i, v := range words(got[0]) {
		want := uint32(3 * i * (i - 1) / 2)
		if i&1 == 1 {
			want ^= 14
		}
		if v != want {
			t.Fatalf("x[%d] = %d, want %d", i, v, want)
		}
	}
	counts := words(got[1])
	// Find the blocks by what they hold: the loop body multiplies, the odd
	// branch calls twice, twice's body adds.
	find := func(fn, opname string) uint32 {
		t.Helper()
		for k, b := range c.Blocks {
			for _, o := range b.Ops {
				if strings.HasPrefix(b.Function, fn) && o.Name == opname {
					return counts[k]
				}
			}
		}
		t.Fatalf("no block of %s holds %s", fn, opname)
		return 0
	}
	if n := counts[c.Entry]; n != 8 {
		t.Errorf("entry block ran %d times, want 8 (invocations)", n)
	}
	if n := find("main", "OpIMul"); n != 28 {
		t.Errorf("loop body ran %d times, want 28", n)
	}
	if n := find("main", "OpFunctionCall"); n != 4 {
		t.Errorf("odd branch ran %d times, want 4", n)
	}
	if n := find("twice", "OpIAdd"); n != 4 {
		t.Errorf("twice ran %d times, want 4", n)
	}
	p, err := c.Profile(counts)
	if err != nil {
		t.Fatal(err)
	}
	if p.Invocations != 8 {
		t.Errorf("profile: %d invocations, want 8", p.Invocations)
	}
	var total uint64
	for k, b := range c.Blocks {
		for _, o := range b.Ops {
			total += o.N * uint64(counts[k])
		}
	}
	var mul, sum uint64
	for _, o := range p.ByOp {
		sum += o.N
		if o.Name == "OpIMul" {
			mul = o.N
		}
	}
	if p.Total != total || sum != total || mul != 28 {
		t.Errorf("profile total %d, by opcode %d, OpIMul %d; want %d, %d, 28", p.Total, sum, mul, total, total)
	}
	var out strings.Builder
	p.Format(&out, 8, "element", 30)
	if !strings.Contains(out.String(), "over 8 invocations") || !strings.Contains(out.String(), "OpIMul") {
		t.Errorf("Format printed:\n%s", out.String())
	}
}

func TestInstrumentRefuses(t *testing.T) {
	code := compileGLSL(t, loopShader)
	if _, err := Instrument(code, "main", 0); err == nil || !strings.Contains(err.Error(), "binding 0 is already used") {
		t.Errorf("binding in use: err = %v", err)
	}
	if _, err := Instrument(code, "other", 1); err == nil || !strings.Contains(err.Error(), `no entry point named "other"`) {
		t.Errorf("unknown entry: err = %v", err)
	}
	if _, err := Instrument(code[:len(code)-2], "main", 1); err == nil || !strings.Contains(err.Error(), "not a module") {
		t.Errorf("truncated: err = %v", err)
	}
	bad := bytes.Clone(code)
	bad[0] ^= 1
	if _, err := Instrument(bad, "main", 1); err == nil || !strings.Contains(err.Error(), "magic") {
		t.Errorf("bad magic: err = %v", err)
	}
}

// TestGeneratedBlobs instruments every committed blob (spirv-val must
// accept each), checks Parse/Bytes round-trips it, and checks the opcode
// and GLSL.std.450 names the report prints against spirv-dis's.
func TestGeneratedBlobs(t *testing.T) {
	blobs, _ := filepath.Glob("../../generated/spirv/*.spv")
	if len(blobs) == 0 {
		t.Fatal("no generated/spirv/*.spv")
	}
	dis := tool(t, "spirv-dis")
	for _, f := range blobs {
		code, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		m, err := Parse(code)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if !bytes.Equal(m.Bytes(), code) {
			t.Fatalf("%s: Parse then Bytes changed the module", f)
		}
		text, err := exec.Command(dis, "--raw-id", "--no-header", "--no-indent", f).Output()
		if err != nil {
			t.Fatalf("spirv-dis %s: %v", f, err)
		}
		lines := strings.Split(strings.TrimSpace(string(text)), "\n")
		if len(lines) != len(m.Insts) {
			t.Fatalf("%s: spirv-dis printed %d lines for %d instructions", f, len(lines), len(m.Insts))
		}
		for k, line := range lines {
			fields := strings.Fields(line)
			if len(fields) > 2 && fields[1] == "=" {
				fields = fields[2:]
			}
			if got := OpName(op(m.Insts[k])); got != fields[0] {
				t.Fatalf("%s: instruction %d is %s, the table says %s", f, k, fields[0], got)
			}
			if op(m.Insts[k]) == opExtInst && len(fields) > 3 && !strings.HasPrefix(glsl450Name(m.Insts[k][4]), "#") {
				if got := glsl450Name(m.Insts[k][4]); got != fields[3] {
					t.Fatalf("%s: instruction %d is OpExtInst %s, the table says %s", f, k, fields[3], got)
				}
			}
		}
		c, err := Instrument(code, "main", 15)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		validate(t, c.Code)
	}
}

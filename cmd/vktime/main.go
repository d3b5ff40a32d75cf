// Command vktime times one SPIR-V compute shader on a Vulkan device the way
// gen bench times a variant (every buffer rotated over copies so that a
// pass streams from device memory, one dispatch per copy recorded in one
// command buffer with a barrier between dispatches, GPU timestamps around
// each pass, the median pass over -reps divided by the copies), and prints
// what the driver compiled the pipeline into where the driver reports it
// (VK_KHR_pipeline_executable_properties: registers, code size).
//
// It is the bench's harness for shaders that are not variants of the
// table: an empty shader (the floor of a dispatch), a copy (the path's
// bandwidth roof), a variant's blob with other specialization constants.
//
//	glslangValidator -V --target-env vulkan1.2 -o empty.spv empty.comp
//	vktime -spv empty.spv -groups 1 -dispatches 512
//	vktime -spv generated/spirv/quant_q8_1_f16_thread.spv -spec 0=64,3=1 \
//	    -push 4096,4096,128,64 -buf 33554432:f16,18874368:zero -groups 8192 -bytes 52428800
//
// With -count it does not time: it runs the shader once with a counter in
// every basic block (runtime/spirv; the counters are a binding after -buf's)
// and prints the SPIR-V instructions executed, per invocation or, with
// -elements N, per element of work, by class and by opcode (issue 12's
// instruction counts; what the driver compiles them into is its own).
//
//	vktime -count -elements 16777216 -spv generated/spirv/quant_q8_1_f16_thread.spv ...
//
// With -dump N:FILE it writes binding N after the timing (an experiment's
// output, to compare byte for byte with the committed blob's on the same
// inputs: -buf's fills are seeded). With -ir PREFIX it also writes what
// the driver kept of the compiled pipeline (its internal representations:
// disassembly on some drivers), one file per representation.
//
// Exit status: 0 timed, 1 a Vulkan or shader error (-ir on a device
// without VK_KHR_pipeline_executable_properties included), 2 bad flags.
package main

import (
	"encoding/binary"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/kgen-dev/kgen/runtime/bench"
	"github.com/kgen-dev/kgen/runtime/spirv"
	"github.com/kgen-dev/kgen/runtime/vulkan"
)

func main() {
	os.Exit(run(os.Args[1:]))
}

// bufSpec is one binding: its size and how it is filled.
type bufSpec struct {
	bytes int
	fill  string // zero; f32, f16, bf16: gen bench's activation values (bench.ActValues); bytes: bench.RandomBytes
}

func run(args []string) int {
	fs := flag.NewFlagSet("vktime", flag.ContinueOnError)
	spv := fs.String("spv", "", "SPIR-V file (required)")
	entry := fs.String("entry", "main", "entry point")
	spec := fs.String("spec", "", "specialization constants ID=VALUE,... (uint32)")
	push := fs.String("push", "", "push constants, uint32 values in order: V,V,...")
	bufs := fs.String("buf", "", "one binding each, in order: BYTES[:FILL],... FILL zero (default), f32, f16, bf16 (gen bench's activations) or bytes (gen bench's other inputs: random bytes, each below 0x40)")
	groups := fs.String("groups", "1", "workgroups X[,Y[,Z]]")
	rotate := fs.Int("rotate-mib", 512, "MiB a timed pass touches at least (every buffer rotated over copies, at most 512)")
	reps := fs.Int("reps", 20, "timed passes (median)")
	dispatches := fs.Int("dispatches", 1, "dispatches a pass holds at least (copies reused round robin; gen bench's one-row cases hold 512)")
	device := fs.Int("device", -1, "Vulkan device index (-1: the first discrete GPU, else device 0)")
	nbytes := fs.Int64("bytes", 0, "bytes one dispatch moves, for GB/s (0: none printed)")
	stats := fs.Bool("stats", true, "print the driver's pipeline statistics where it reports them")
	dump := fs.String("dump", "", "after timing, write binding N of the first buffer copy to FILE (N:FILE): an experiment's output, to compare byte for byte")
	count := fs.Bool("count", false, "run once with a counter in every basic block and print the SPIR-V instructions executed instead of timing (a block's count wraps at 2^32: count a small dispatch)")
	elements := fs.Int64("elements", 0, "with -count: print counts per this many elements of work (0: per invocation)")
	top := fs.Int("top", 25, "with -count: opcodes listed")
	ir := fs.String("ir", "", "write what the driver compiled the pipeline into (its internal representations, where it keeps any) to PREFIX-N.txt or .bin")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: vktime -spv FILE [flags]\n\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	bad := func(format string, a ...any) int {
		fmt.Fprintf(os.Stderr, "vktime: "+format+"\n", a...)
		return 2
	}
	if *spv == "" || fs.NArg() > 0 {
		return bad("want -spv FILE and no arguments (got %q)", fs.Args())
	}
	consts, err := parseSpec(*spec)
	if err != nil {
		return bad("-spec: %v", err)
	}
	pc, err := parseU32s(*push)
	if err != nil {
		return bad("-push: %v", err)
	}
	bs, err := parseBufs(*bufs)
	if err != nil {
		return bad("-buf: %v", err)
	}
	g, err := parseU32s(*groups)
	if err != nil || len(g) < 1 || len(g) > 3 || slices.Contains(g, 0) {
		return bad("-groups %q: want 1 to 3 positive counts", *groups)
	}
	for len(g) < 3 {
		g = append(g, 1)
	}
	j := &job{name: *spv, entry: *entry, consts: consts, push: pc, bufs: bs, groups: [3]uint32(g), rotateMiB: *rotate, reps: *reps,
		dispatches: *dispatches, device: *device, nbytes: *nbytes, stats: *stats, irPrefix: *ir,
		count: *count, elements: *elements, top: *top}
	if *count && *ir != "" {
		return bad("-count and -ir: pick one (-ir shows the pipeline of the shader as given)")
	}
	if *elements < 0 || *top < 0 {
		return bad("-elements and -top must not be negative")
	}
	if *dump != "" {
		k, file, ok := strings.Cut(*dump, ":")
		n, err := strconv.Atoi(k)
		if !ok || err != nil || n < 0 || n >= len(bs) || file == "" {
			return bad("-dump %q: want N:FILE with N a binding of -buf (0..%d)", *dump, len(bs)-1)
		}
		j.dumpBinding, j.dumpFile = n, file
	}
	if *reps < 1 || *rotate < 0 || *dispatches < 1 {
		return bad("-reps and -dispatches must be positive and -rotate-mib not negative")
	}
	if j.code, err = os.ReadFile(*spv); err != nil {
		fmt.Fprintln(os.Stderr, "vktime:", err)
		return 1
	}
	if err := j.run(); err != nil {
		fmt.Fprintln(os.Stderr, "vktime:", err)
		return 1
	}
	return 0
}

// job is one timing: the shader, how it is dispatched, and what is
// printed and written afterwards.
type job struct {
	name        string // the SPIR-V file, for the printed line
	code        []byte
	entry       string
	consts      []vulkan.SpecConst
	push        []uint32
	bufs        []bufSpec
	groups      [3]uint32
	rotateMiB   int
	reps        int
	dispatches  int
	device      int // -1: the first discrete GPU, else device 0
	nbytes      int64
	stats       bool
	irPrefix    string // -ir: "" for none
	dumpBinding int    // -dump: the binding written to dumpFile
	dumpFile    string // "" for none
	count       bool   // -count: run the instrumented shader once instead of timing
	elements    int64  // -elements: the unit -count prints per (0: invocations)
	top         int
}

func (j *job) run() error {
	device := j.device
	inst, err := vulkan.Open()
	if err != nil {
		return err
	}
	defer inst.Close()
	if device < 0 {
		device = 0
		for _, info := range inst.Devices() {
			if info.DeviceType == "discrete-gpu" {
				device = info.Index
				break
			}
		}
	}
	d, err := inst.OpenDevice(device)
	if err != nil {
		return err
	}
	defer d.Close()
	info := d.Info()
	if j.stats && info.PipelineStatistics {
		if err := d.CaptureStatistics(true); err != nil {
			return err
		}
	}
	if j.irPrefix != "" {
		if err := d.CaptureInternalRepresentations(true); err != nil {
			return err
		}
	}
	push := make([]byte, 4*len(j.push))
	for k, v := range j.push {
		binary.LittleEndian.PutUint32(push[4*k:], v)
	}
	code, nbufs := j.code, len(j.bufs)
	var counted *spirv.Counted
	if j.count {
		if counted, err = spirv.Instrument(j.code, j.entry, uint32(len(j.bufs))); err != nil {
			return err
		}
		code, nbufs = counted.Code, nbufs+1
	}
	p, err := d.NewPipeline(code, j.entry, j.consts, nbufs, len(push))
	if err != nil {
		return err
	}
	defer p.Destroy()

	// Copies: enough that a pass touches rotateMiB, at most 512 (one for a
	// counted run, whose counters are one more binding, zeroed).
	bufs, copies := j.bufs, 1
	if j.count {
		bufs = append(slices.Clone(j.bufs), bufSpec{bytes: 4 * len(counted.Blocks), fill: "zero"})
	} else {
		total := 0
		for _, b := range j.bufs {
			total += b.bytes
		}
		if total > 0 {
			copies = min(max(1, (j.rotateMiB<<20+total-1)/total), 512)
		}
	}
	// One random content per binding, uploaded to each of its copies.
	rng := rand.New(rand.NewPCG(1, 2))
	data := make([][]byte, len(bufs))
	for k, b := range bufs {
		if b.fill != "zero" {
			data[k] = fillData(rng, b.fill, b.bytes)
		}
	}
	sets := make([][]*vulkan.Buffer, copies)
	for c := range sets {
		for k, b := range bufs {
			buf, err := d.NewBuffer(b.bytes)
			if err != nil {
				return fmt.Errorf("copy %d of %d: %w", c+1, copies, err)
			}
			defer buf.Free()
			if data[k] == nil {
				err = buf.Fill(0)
			} else {
				err = buf.Upload(data[k])
			}
			if err != nil {
				return err
			}
			sets[c] = append(sets[c], buf)
		}
	}
	if j.count {
		if err := d.Run(vulkan.Dispatch{Pipeline: p, Buffers: sets[0], Push: push, Groups: j.groups}); err != nil {
			return err
		}
		if err := j.printCounts(sets[0][len(bufs)-1], counted, info.Name); err != nil {
			return err
		}
		return j.dump(sets[0])
	}
	ds := make([]vulkan.Dispatch, max(copies, j.dispatches))
	for k := range ds {
		ds[k] = vulkan.Dispatch{Pipeline: p, Buffers: sets[k%copies], Push: push, Groups: j.groups}
	}
	ns, err := d.Time(ds, j.reps)
	if err != nil {
		return err
	}
	slices.Sort(ns)
	us := ns[len(ns)/2] / 1e3 / float64(len(ds))
	line := fmt.Sprintf("%s groups %v: %.3f us a dispatch (median of %d passes of %d dispatches over %d buffer copies; %s)",
		j.name, j.groups, us, j.reps, len(ds), copies, info.Name)
	if j.nbytes > 0 {
		line += fmt.Sprintf(", %.0f GB/s", float64(j.nbytes)/us/1e3)
	}
	fmt.Println(line)
	if j.stats && info.PipelineStatistics {
		st, err := p.Statistics()
		if err != nil {
			return err
		}
		for _, s := range st {
			fmt.Printf("  %s: %s\n", s.Executable, s)
		}
	}
	// Every copy was dispatched at least once (ds covers them all), and
	// each dispatch of a copy computes the same from the same inputs.
	if err := j.dump(sets[0]); err != nil {
		return err
	}
	if j.irPrefix != "" {
		rs, err := p.InternalRepresentations()
		if err != nil {
			return err
		}
		if len(rs) == 0 {
			fmt.Println("  the driver kept no internal representation")
		}
		for k, r := range rs {
			file := fmt.Sprintf("%s-%d.bin", j.irPrefix, k)
			if r.Text {
				file = fmt.Sprintf("%s-%d.txt", j.irPrefix, k)
			}
			if err := os.WriteFile(file, r.Data, 0o644); err != nil {
				return err
			}
			fmt.Printf("  %s: %s (%s): %d bytes -> %s\n", r.Executable, r.Name, r.Description, len(r.Data), file)
		}
	}
	return nil
}

// printCounts reads a counted run's counters and prints what it executed.
func (j *job) printCounts(counters *vulkan.Buffer, c *spirv.Counted, device string) error {
	raw := make([]byte, 4*len(c.Blocks))
	if err := counters.Download(raw); err != nil {
		return err
	}
	counts := make([]uint32, len(c.Blocks))
	for k := range counts {
		counts[k] = binary.LittleEndian.Uint32(raw[4*k:])
	}
	prof, err := c.Profile(counts)
	if err != nil {
		return err
	}
	fmt.Printf("%s groups %v (%s, counted run):\n", j.name, j.groups, device)
	prof.Format(os.Stdout, uint64(j.elements), "element", j.top)
	return nil
}

// dump writes the -dump binding of one buffer copy to its file, if asked.
func (j *job) dump(set []*vulkan.Buffer) error {
	if j.dumpFile == "" {
		return nil
	}
	buf := make([]byte, j.bufs[j.dumpBinding].bytes)
	if err := set[j.dumpBinding].Download(buf); err != nil {
		return err
	}
	return os.WriteFile(j.dumpFile, buf, 0o644)
}

// fillData is n bytes of what a -buf fill other than zero names.
func fillData(rng *rand.Rand, fill string, n int) []byte {
	if fill == "bytes" {
		return bench.RandomBytes(rng, n)
	}
	return bench.ActValues(rng, fill, n)
}

func parseU32s(s string) ([]uint32, error) {
	if s == "" {
		return nil, nil
	}
	var out []uint32
	for _, f := range strings.Split(s, ",") {
		v, err := strconv.ParseUint(strings.TrimSpace(f), 0, 32)
		if err != nil {
			return nil, fmt.Errorf("%q is not a uint32", f)
		}
		out = append(out, uint32(v))
	}
	return out, nil
}

func parseSpec(s string) ([]vulkan.SpecConst, error) {
	if s == "" {
		return nil, nil
	}
	var out []vulkan.SpecConst
	for _, f := range strings.Split(s, ",") {
		id, val, ok := strings.Cut(f, "=")
		if !ok {
			return nil, fmt.Errorf("%q: want ID=VALUE", f)
		}
		v, err := parseU32s(id + "," + val)
		if err != nil {
			return nil, fmt.Errorf("%q: %v", f, err)
		}
		out = append(out, vulkan.SpecConst{ID: v[0], Value: v[1]})
	}
	return out, nil
}

func parseBufs(s string) ([]bufSpec, error) {
	if s == "" {
		return nil, nil
	}
	var out []bufSpec
	for _, f := range strings.Split(s, ",") {
		size, fill, _ := strings.Cut(f, ":")
		if fill == "" {
			fill = "zero"
		}
		switch fill {
		case "zero", "f32", "f16", "bf16", "bytes":
		default:
			return nil, fmt.Errorf("%q: fill %q is not zero, f32, f16, bf16 or bytes", f, fill)
		}
		n, err := strconv.ParseInt(size, 0, 64)
		if err != nil || n <= 0 || n > 1<<34 {
			return nil, fmt.Errorf("%q: want a positive byte count", f)
		}
		out = append(out, bufSpec{bytes: int(n), fill: fill})
	}
	return out, nil
}

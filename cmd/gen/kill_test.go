package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// killFixture is what the kill and concurrency tests share: a gen binary,
// a module whose spec gained an arch (so gen writes new files), its
// generated/ before (old) and after (new) a complete run, and a warm cache.
type killFixture struct {
	bin      string
	mod      string // templates with the new arch; generated/ holds old
	old, new string // copies of generated/ in each complete state
	oldHash  string
	newHash  string
	cache    string // warm for the new spec
	tmp      string // TMPDIR of gen runs (compilers' scratch)
	arch     string // the added arch
	warm     time.Duration
}

// TestGenUnderKill runs gen as a separate process: killed at many points
// (kill) and two at once (concurrent). Both share one fixture.
func TestGenUnderKill(t *testing.T) {
	if testing.Short() {
		t.Skip("builds gen and runs it many times")
	}
	f, err := newKillFixture(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("fixture: added arch %s; warm run %s", f.arch, f.warm.Round(time.Millisecond))
	t.Run("kill", func(t *testing.T) { testGenKill(t, f) })
	t.Run("concurrent", func(t *testing.T) { testGenConcurrent(t, f) })
}

func newKillFixture(dir string) (*killFixture, error) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		return nil, err
	}
	f := &killFixture{bin: filepath.Join(dir, "gen"), mod: filepath.Join(dir, "mod"), old: filepath.Join(dir, "old"),
		new: filepath.Join(dir, "new"), tmp: filepath.Join(dir, "tmp")}
	build := exec.Command("go", "build", "-o", f.bin, "./cmd/gen")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("go build: %v\n%s", err, out)
	}
	for _, p := range []string{"go.mod", "templates", "generated"} {
		if err := copyTree(filepath.Join(root, p), filepath.Join(f.mod, p)); err != nil {
			return nil, err
		}
	}
	if err := os.MkdirAll(f.tmp, 0o755); err != nil {
		return nil, err
	}
	f.cache = os.Getenv("KGEN_TEST_CACHE")
	if f.cache == "" {
		f.cache = filepath.Join(dir, "cache")
	}
	// Old: what gen makes of the snapshot's own spec (whatever generated/
	// the checkout holds).
	if out, err := f.gen(f.cache, "-q"); err != nil {
		return nil, fmt.Errorf("gen on the snapshot: %v\n%s", err, out)
	}
	if err := copyTree(filepath.Join(f.mod, "generated"), f.old); err != nil {
		return nil, err
	}
	// New: the same with an arch file more (a copy of a HIP arch for
	// amdgcn), which adds HIP sources and changes the table, the C header
	// and the manifest.
	src := ""
	archs, _ := filepath.Glob(filepath.Join(f.mod, "templates", "archs", "*.yaml"))
	for _, a := range archs {
		b, _ := os.ReadFile(a)
		if strings.Contains(string(b), "backend: hip") && !strings.Contains(string(b), "target:") {
			src = a
			break
		}
	}
	if src == "" {
		return nil, errors.New("no HIP arch file to copy")
	}
	stem := strings.TrimSuffix(filepath.Base(src), ".yaml")
	// A real offload arch (clang checks the HIP source for it) that the
	// snapshot does not have.
	for _, real := range []string{"gfx1201", "gfx1151", "gfx1030", "gfx908"} {
		if _, err := os.Stat(filepath.Join(f.mod, "templates", "archs", real+".yaml")); err != nil {
			f.arch = real
			break
		}
	}
	b, _ := os.ReadFile(src)
	nb := strings.Replace(string(b), "arch: "+stem, "arch: "+f.arch, 1)
	if f.arch == "" || nb == string(b) {
		return nil, fmt.Errorf("cannot make a new arch from %s", src)
	}
	if err := os.WriteFile(filepath.Join(f.mod, "templates", "archs", f.arch+".yaml"), []byte(nb), 0o644); err != nil {
		return nil, err
	}
	if out, err := f.gen(f.cache, "-q"); err != nil {
		return nil, fmt.Errorf("gen with the new arch: %v\n%s", err, out)
	}
	if err := copyTree(filepath.Join(f.mod, "generated"), f.new); err != nil {
		return nil, err
	}
	// A warm run from the old tree, for the time scale of the kill points.
	if err := f.reset(); err != nil {
		return nil, err
	}
	start := time.Now()
	if out, err := f.gen(f.cache, "-q"); err != nil {
		return nil, fmt.Errorf("warm gen: %v\n%s", err, out)
	}
	f.warm = time.Since(start)
	if f.oldHash, err = hashDir(f.old); err != nil {
		return nil, err
	}
	if f.newHash, err = hashDir(f.new); err != nil {
		return nil, err
	}
	if f.oldHash == f.newHash {
		return nil, errors.New("the added arch changed nothing")
	}
	return f, f.reset()
}

// gen runs the binary on the fixture's module to completion.
func (f *killFixture) gen(cache string, args ...string) ([]byte, error) {
	cmd := f.command(cache, args...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return out.Bytes(), err
}

func (f *killFixture) command(cache string, args ...string) *exec.Cmd {
	// No clang: the HIP checks would only slow the runs down (the manifest
	// keeps the clang version that last checked), and killing glslang runs
	// exercises the compile phase as well.
	cmd := exec.Command(f.bin, append([]string{"--root", f.mod, "--cache", cache, "--skip-hip-check"}, args...)...)
	cmd.Env = append(os.Environ(), "TMPDIR="+f.tmp)
	// Its own process group, so a kill takes its compilers too (as a
	// terminal's or a CI runner's kill does).
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	return cmd
}

// reset puts the old generated/ back. Stale stage directories beside it
// are left for the next run to clean up.
func (f *killFixture) reset() error {
	g := filepath.Join(f.mod, "generated")
	if err := os.RemoveAll(g); err != nil {
		return err
	}
	return copyTree(f.old, g)
}

func hashDir(dir string) (string, error) {
	sum, n, err := hashTree(dir)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("%s (%d entries)", sum[:16], n), nil
}

func stale(mod string) []string {
	m, _ := filepath.Glob(filepath.Join(mod, ".kgen-*"))
	return m
}

// killPoint is one way of choosing the moment of the SIGKILL.
type killPoint struct {
	name  string
	cold  bool                                       // empty cache: the run compiles everything
	after func(cmd *exec.Cmd, stderr *bufio.Scanner) // returns at the moment to kill
}

// testGenKill starts gen on the changed spec and SIGKILLs it (its process
// group) at many points: at times spread over a warm run, after the n-th
// compile of a cold run, and at delays after the stage directory appears
// (the write). After each kill generated/ must be byte-identical to the old
// or the new complete tree; after some, a normal run must clean up the
// stale directories, reach the new tree and pass --check.
func testGenKill(t *testing.T, f *killFixture) {
	var points []killPoint
	// Over a warm run: 0 to 5/6 of its duration.
	for i := 0; i < 6; i++ {
		d := f.warm * time.Duration(i) / 6
		points = append(points, killPoint{name: fmt.Sprintf("warm run at %s", d.Round(time.Millisecond)),
			after: func(*exec.Cmd, *bufio.Scanner) { time.Sleep(d) }})
	}
	// During cold compiles: after the n-th finished compile (and at a
	// few fixed times, while glslang and clang run).
	for _, n := range []int{1, 2, 3, 5, 8, 13, 25, 40} {
		points = append(points, killPoint{name: fmt.Sprintf("cold run after compile %d", n), cold: true,
			after: func(_ *exec.Cmd, sc *bufio.Scanner) {
				seen := 0
				for seen < n && sc.Scan() {
					if strings.HasPrefix(sc.Text(), "compiled ") {
						seen++
					}
				}
			}})
	}
	for _, d := range []time.Duration{20 * time.Millisecond, 100 * time.Millisecond, 300 * time.Millisecond, time.Second} {
		points = append(points, killPoint{name: fmt.Sprintf("cold run at %s", d), cold: true,
			after: func(*exec.Cmd, *bufio.Scanner) { time.Sleep(d) }})
	}
	// During the write: once this run's stage directory exists, after a
	// delay spread over the write's duration (measured first).
	waitStage := func() time.Time {
		// Stages left by earlier kills do not count: wait for this run's.
		earlier := map[string]bool{}
		for _, s := range stageDirs(f.mod, "stage") {
			earlier[s] = true
		}
		deadline := time.Now().Add(f.warm*5 + 20*time.Second)
		for time.Now().Before(deadline) {
			for _, s := range stageDirs(f.mod, "stage") {
				if !earlier[s] {
					return time.Now()
				}
			}
			time.Sleep(20 * time.Microsecond)
		}
		return time.Now()
	}
	// The write's duration varies a lot between runs (fsync), so the
	// delays are a geometric series, plus fractions of one measured write.
	write := f.writeDuration(t, waitStage)
	var delays []time.Duration
	for d := 500 * time.Microsecond; d < 300*time.Millisecond; d = d * 17 / 10 {
		delays = append(delays, d)
	}
	delays = append(delays, 0, write/2, write*9/10, write)
	for _, d := range delays {
		points = append(points, killPoint{name: fmt.Sprintf("write, %s after the stage appeared", d.Round(10*time.Microsecond)),
			after: func(*exec.Cmd, *bufio.Scanner) { waitStage(); time.Sleep(d) }})
	}

	killed, states := 0, map[string]int{}
	for i, p := range points {
		cache := f.cache
		if p.cold {
			cache = t.TempDir()
		}
		cmd := f.command(cache) // not quiet: progress lines name each compile
		stderr, err := cmd.StderrPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(stderr)
		waited := make(chan error, 1)
		p.after(cmd, sc)
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		go func() { io.Copy(io.Discard, stderr) }()
		go func() { waited <- cmd.Wait() }()
		err = <-waited
		wasKilled := false
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
				wasKilled = true
			}
		}
		if wasKilled {
			killed++
		} else if err != nil {
			t.Fatalf("%s: gen failed on its own: %v", p.name, err)
		}
		h, err := hashDir(filepath.Join(f.mod, "generated"))
		if err != nil {
			t.Fatalf("%s: %v", p.name, err)
		}
		state := ""
		switch h {
		case f.oldHash:
			state = "old"
		case f.newHash:
			state = "new"
		default:
			t.Fatalf("%s: generated/ is neither the old nor the new tree (%s); stale: %v", p.name, h, stale(f.mod))
		}
		states[state]++
		t.Logf("kill %2d: %-40s killed=%v generated/=%s, left beside it: %d", i+1, p.name, wasKilled, state, len(stale(f.mod)))
		// Every other kill, a normal run must recover (the others leave
		// their debris to the next kill's run, and the last to the final
		// run).
		if i%2 == 0 {
			if out, err := f.gen(f.cache, "-q"); err != nil {
				t.Fatalf("%s: the run after the kill failed: %v\n%s", p.name, err, out)
			}
			if h, _ := hashDir(filepath.Join(f.mod, "generated")); h != f.newHash {
				t.Fatalf("%s: the run after the kill left %s, not the new tree", p.name, h)
			}
			if s := stale(f.mod); len(s) > 0 {
				t.Fatalf("%s: the run after the kill left %v", p.name, s)
			}
		}
		if err := f.reset(); err != nil {
			t.Fatal(err)
		}
	}
	// The last word: a normal run recovers, and the tree checks clean.
	if out, err := f.gen(f.cache, "-q"); err != nil {
		t.Fatalf("final run: %v\n%s", err, out)
	}
	if s := stale(f.mod); len(s) > 0 {
		t.Errorf("left after the final run: %v", s)
	}
	if out, err := f.gen(f.cache, "--check"); err != nil {
		t.Fatalf("--check after the kills: %v\n%s", err, out)
	}
	if h, _ := hashDir(filepath.Join(f.mod, "generated")); h != f.newHash {
		t.Errorf("final tree %s is not the new one", h)
	}
	t.Logf("%d kill points, %d killed mid-run (the rest had finished); generated/ old %d times, new %d times; warm run %s, write %s",
		len(points), killed, states["old"], states["new"], f.warm.Round(time.Millisecond), write.Round(time.Microsecond))
	if killed < 20 {
		t.Errorf("only %d runs were killed before finishing; want at least 20", killed)
	}
	if err := f.reset(); err != nil {
		t.Fatal(err)
	}
}

// writeDuration runs gen once from the old tree and measures from its stage
// directory's appearance to its exit.
func (f *killFixture) writeDuration(t *testing.T, waitStage func() time.Time) time.Duration {
	t.Helper()
	if err := f.reset(); err != nil {
		t.Fatal(err)
	}
	cmd := f.command(f.cache, "-q")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	seen := waitStage()
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	d := time.Since(seen)
	if err := f.reset(); err != nil {
		t.Fatal(err)
	}
	return d
}

func stageDirs(mod, kind string) []string {
	m, _ := filepath.Glob(filepath.Join(mod, ".kgen-"+kind+"-*"))
	return m
}

// testGenConcurrent starts two gen runs on one tree: at the same moment,
// and one while the other holds the lock. One succeeds; the other fails
// with exit 1 and "another gen is running (pid N)" naming the holder (or,
// if it came after the holder finished, succeeds with nothing to do). The
// tree ends new and checks clean.
func testGenConcurrent(t *testing.T, f *killFixture) {
	type run struct {
		cmd *exec.Cmd
		out bytes.Buffer
		err error
	}
	start := func(r *run) {
		r.cmd = f.command(f.cache, "-q")
		r.cmd.Stdout, r.cmd.Stderr = &r.out, &r.out
		if err := r.cmd.Start(); err != nil {
			t.Fatal(err)
		}
	}
	check := func(what string, runs ...*run) {
		t.Helper()
		ok := 0
		for i, r := range runs {
			other := runs[1-i].cmd.Process.Pid
			switch code := r.cmd.ProcessState.ExitCode(); {
			case code == 0:
				ok++
			case code == 1 && strings.Contains(r.out.String(), fmt.Sprintf("another gen is running (pid %d)", other)):
				t.Logf("%s: run %d: %s", what, i+1, strings.TrimSpace(r.out.String()))
			default:
				t.Errorf("%s: run %d exited %d: %s", what, i+1, code, r.out.String())
			}
		}
		if ok == 0 {
			t.Errorf("%s: neither run succeeded", what)
		}
		if h, _ := hashDir(filepath.Join(f.mod, "generated")); h != f.newHash {
			t.Errorf("%s: generated/ is %s, not the new tree", what, h)
		}
		if s := stale(f.mod); len(s) > 0 {
			t.Errorf("%s: left %v", what, s)
		}
		if out, err := f.gen(f.cache, "--check", "-q"); err != nil {
			t.Errorf("%s: --check: %v\n%s", what, err, out)
		}
	}

	// At the same moment.
	for i := 0; i < 2; i++ {
		if err := f.reset(); err != nil {
			t.Fatal(err)
		}
		a, b := &run{}, &run{}
		start(a)
		start(b)
		a.err, b.err = a.cmd.Wait(), b.cmd.Wait()
		check(fmt.Sprintf("simultaneous #%d", i+1), a, b)
	}

	// The second while the first holds the lock: it must be refused.
	if err := f.reset(); err != nil {
		t.Fatal(err)
	}
	a, b := &run{}, &run{}
	start(a)
	lock := filepath.Join(f.mod, ".kgen.lock")
	deadline := time.Now().Add(30 * time.Second)
	for {
		if bs, _ := os.ReadFile(lock); strings.TrimSpace(string(bs)) == fmt.Sprint(a.cmd.Process.Pid) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the first run never took the lock")
		}
		time.Sleep(time.Millisecond)
	}
	start(b)
	b.err = b.cmd.Wait()
	a.err = a.cmd.Wait()
	if b.cmd.ProcessState.ExitCode() != 1 || !strings.Contains(b.out.String(), fmt.Sprintf("another gen is running (pid %d)", a.cmd.Process.Pid)) {
		t.Errorf("the run started while another held the lock: exit %d: %s", b.cmd.ProcessState.ExitCode(), b.out.String())
	}
	check("while locked", a, b)
	if err := f.reset(); err != nil {
		t.Fatal(err)
	}
}

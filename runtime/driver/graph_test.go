package driver

import (
	"encoding/binary"
	"errors"
	"reflect"
	"strings"
	"testing"
	"unsafe"
)

// graphFixture is a fake Context with a 4-word allocation y and a module of
// fill (fill(y, v, n)) and failing (returns 719 when it runs).
type graphFixture struct {
	f       *fakeDriver
	c       *Context
	y       Ptr
	fill    *Function
	failing *Function
}

func newGraphFixture(t *testing.T, b Backend, tune func(*fakeDriver)) *graphFixture {
	t.Helper()
	f := newFake(b)
	f.kernel("fill", 3, fillKernel)
	f.kernel("failing", 0, func([3]uint32, [3]uint32, []unsafe.Pointer, func(Ptr, int) []byte) int32 { return 719 })
	if tune != nil {
		tune(f)
	}
	c, err := f.open(0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	g := &graphFixture{f: f, c: c}
	if g.y, err = c.Alloc(16); err != nil {
		t.Fatal(err)
	}
	m, err := c.LoadModule([]byte("fill failing"))
	if err != nil {
		t.Fatal(err)
	}
	if g.fill, err = m.Function("fill"); err != nil {
		t.Fatal(err)
	}
	if g.failing, err = m.Function("failing"); err != nil {
		t.Fatal(err)
	}
	return g
}

func (g *graphFixture) launchFill(v uint32) error {
	return g.c.Launch(g.fill, [3]uint32{1, 1, 1}, [3]uint32{4, 1, 1}, 0, g.y, v, int32(4))
}

// word0 downloads y[0].
func (g *graphFixture) word0(t *testing.T) uint32 {
	t.Helper()
	buf := make([]byte, 16)
	if err := g.c.Download(buf, g.y); err != nil {
		t.Fatal(err)
	}
	return binary.LittleEndian.Uint32(buf)
}

// log returns the fake's capture/graph calls since the last call and
// forgets them.
func (g *graphFixture) log() []string {
	g.f.mu.Lock()
	defer g.f.mu.Unlock()
	l := g.f.graphLog
	g.f.graphLog = nil
	return l
}

// leftovers reports graphs, executable graphs or a capture the fake still
// holds.
func (g *graphFixture) leftovers() string {
	g.f.mu.Lock()
	defer g.f.mu.Unlock()
	var s []string
	if len(g.f.graphs) != 0 {
		s = append(s, "graphs")
	}
	if len(g.f.execs) != 0 {
		s = append(s, "executable graphs")
	}
	if g.f.capturing != 0 {
		s = append(s, "a stream still capturing")
	}
	return strings.Join(s, ", ")
}

func repeat(s string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = s
	}
	return out
}

func concat(parts ...[]string) []string {
	var out []string
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

// TestTimeGraphOnFake: TimeGraph captures one call of the callback on the
// Context's stream in thread-local mode (the launches are recorded, not
// run), instantiates the graph once, replays it for warm-up and for each
// timed replay (running the recorded launches in order with the values
// captured), times the replays in microseconds like Time, and destroys the
// executable graph and then the graph, once each.
func TestTimeGraphOnFake(t *testing.T) {
	for _, b := range []Backend{CUDA, HIP} {
		t.Run(string(b), func(t *testing.T) {
			g := newGraphFixture(t, b, nil)
			f, c := g.f, g.c
			if l := g.log(); !reflect.DeepEqual(l, []string{"stream-create"}) {
				t.Errorf("open: %v", l)
			}
			if f.streams[c.stream] != 0 || c.stream == 0 {
				t.Errorf("context stream %#x created with flags %d, want a stream with the default (blocking) flag", c.stream, f.streams[c.stream])
			}
			// Launches during the capture must not synchronize even with
			// SetSyncLaunches (the fake invalidates a capture that does).
			c.SetSyncLaunches(true)
			calls, launchesDuring := 0, -1
			const reps = 4
			us, err := c.TimeGraph(reps, func() error {
				calls++
				if err := g.launchFill(7); err != nil {
					return err
				}
				if err := g.launchFill(9); err != nil {
					return err
				}
				launchesDuring = f.launches
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if calls != 1 {
				t.Errorf("callback called %d times, want 1 (captured once)", calls)
			}
			if launchesDuring != 0 {
				t.Errorf("%d kernels ran during the capture, want 0 (recorded only)", launchesDuring)
			}
			if f.captureMode != 1 {
				t.Errorf("capture mode %d, want thread-local (1)", f.captureMode)
			}
			// Two recorded kernels per replay, 0.5 ms each on the fake's clock.
			if !reflect.DeepEqual(us, []float64{1000, 1000, 1000, 1000}) {
				t.Errorf("replay times %v us, want 4 x 1000", us)
			}
			if f.graphLaunches != graphWarmup+reps || f.launches != 2*(graphWarmup+reps) {
				t.Errorf("%d replays running %d kernels, want %d and %d", f.graphLaunches, f.launches, graphWarmup+reps, 2*(graphWarmup+reps))
			}
			want := concat([]string{"begin", "record fill", "record fill", "end", "instantiate"},
				repeat("launch", graphWarmup+reps), []string{"exec-destroy", "graph-destroy"})
			if l := g.log(); !reflect.DeepEqual(l, want) {
				t.Errorf("graph calls\n got %v\nwant %v", l, want)
			}
			if v := g.word0(t); v != 9 {
				t.Errorf("y[0] = %d after the replays, want 9 (fill 7 then fill 9, in capture order)", v)
			}
			if s := g.leftovers(); s != "" {
				t.Errorf("left behind: %s", s)
			}
			// Eager timing on the same stream, same unit.
			c.SetSyncLaunches(false)
			eager, err := c.Time(2, func() error { return g.launchFill(3) })
			if err != nil || !reflect.DeepEqual(eager, []float64{500, 500}) {
				t.Errorf("Time after TimeGraph: %v, %v", eager, err)
			}
			if off := f.offThread.Load(); off != 0 {
				t.Errorf("%d driver calls ran off the driver thread", off)
			}
			if _, err := c.TimeGraph(0, func() error { return nil }); err == nil || !strings.Contains(err.Error(), "reps must be positive") {
				t.Errorf("TimeGraph(0): %v", err)
			}
			c.Close()
			if l := g.log(); !reflect.DeepEqual(l, []string{"stream-destroy"}) || len(f.streams) != 0 {
				t.Errorf("Close: %v, %d streams left", l, len(f.streams))
			}
		})
	}
}

// TestTimeGraphCaptureErrors: whatever goes wrong while capturing, the
// capture is ended, a graph the driver returned is destroyed once, nothing
// is instantiated or replayed, and the stream works afterwards.
func TestTimeGraphCaptureErrors(t *testing.T) {
	boom := errors.New("boom")
	for _, tc := range []struct {
		name    string
		fn      func(g *graphFixture) error
		endCode int32
		errs    []string // substrings of the error
		log     []string // graph calls
		check   func(t *testing.T, err error)
	}{
		{
			name: "callback error after a launch",
			fn: func(g *graphFixture) error {
				if err := g.launchFill(5); err != nil {
					return err
				}
				return boom
			},
			errs: []string{"captured run: boom"},
			log:  []string{"begin", "record fill", "end", "graph-destroy"},
			check: func(t *testing.T, err error) {
				if !errors.Is(err, boom) {
					t.Errorf("error does not wrap the callback's: %v", err)
				}
			},
		},
		{
			name: "launch error",
			fn: func(g *graphFixture) error {
				return g.c.Launch(g.fill, [3]uint32{1, 1, 1}, [3]uint32{2048, 1, 1}, 0, g.y, uint32(1), int32(4))
			},
			errs: []string{"captured run: launch fill", "(1)"},
			log:  []string{"begin", "end", "graph-destroy"},
			check: func(t *testing.T, err error) {
				var de *Error
				if !errors.As(err, &de) || de.Code != 1 {
					t.Errorf("the launch's driver error is not kept: %v", err)
				}
			},
		},
		{
			name: "panic",
			fn:   func(g *graphFixture) error { panic("kaboom") },
			errs: []string{"captured run", "panic on the driver thread: kaboom"},
			log:  []string{"begin", "end", "graph-destroy"},
		},
		{
			name: "memset during capture",
			fn: func(g *graphFixture) error {
				if err := g.launchFill(5); err != nil {
					return err
				}
				return g.c.Memset32(g.y, 0, 4)
			},
			errs: []string{"Memset32 inside a TimeGraph launch callback", "only launches can be captured"},
			log:  []string{"begin", "record fill", "end", "graph-destroy"},
		},
		{
			name: "sync during capture",
			fn:   func(g *graphFixture) error { return g.c.Sync() },
			errs: []string{"Sync inside a TimeGraph"},
			log:  []string{"begin", "end", "graph-destroy"},
		},
		{
			name: "timing during capture",
			fn: func(g *graphFixture) error {
				_, err := g.c.TimeGraph(1, func() error { return nil })
				return err
			},
			errs: []string{"TimeGraph inside a TimeGraph"},
			log:  []string{"begin", "end", "graph-destroy"},
		},
		{
			name:    "invalidated capture",
			fn:      func(g *graphFixture) error { return g.launchFill(5) },
			endCode: 901,
			errs:    []string{"StreamEndCapture: drv:", "(901)"},
			log:     []string{"begin", "record fill", "end"}, // no graph came back: nothing to destroy
			check: func(t *testing.T, err error) {
				var de *Error
				if !errors.As(err, &de) || de.Code != 901 {
					t.Errorf("not the driver's invalidation error: %v", err)
				}
			},
		},
		{
			name:    "callback error and invalidated capture",
			fn:      func(g *graphFixture) error { return boom },
			endCode: 901,
			errs:    []string{"captured run: boom", "(901)"},
			log:     []string{"begin", "end"},
		},
	} {
		for _, b := range []Backend{CUDA, HIP} {
			t.Run(tc.name+"/"+string(b), func(t *testing.T) {
				g := newGraphFixture(t, b, func(f *fakeDriver) { f.endCode = tc.endCode })
				g.log()
				_, err := g.c.TimeGraph(3, func() error { return tc.fn(g) })
				if err == nil {
					t.Fatal("TimeGraph succeeded")
				}
				for _, s := range tc.errs {
					if !strings.Contains(err.Error(), s) {
						t.Errorf("error lacks %q: %v", s, err)
					}
				}
				if tc.check != nil {
					tc.check(t, err)
				}
				if l := g.log(); !reflect.DeepEqual(l, tc.log) {
					t.Errorf("graph calls\n got %v\nwant %v", l, tc.log)
				}
				if s := g.leftovers(); s != "" {
					t.Errorf("left behind: %s", s)
				}
				if g.f.invalidated {
					t.Error("an unsafe call reached the driver during the capture")
				}
				if g.f.launches != 0 {
					t.Errorf("%d kernels ran", g.f.launches)
				}
				// The stream is usable: eager launches and a new capture work.
				g.f.endCode = 0
				if err := g.launchFill(11); err != nil {
					t.Fatal(err)
				}
				if v := g.word0(t); v != 11 {
					t.Errorf("eager launch after the failure: y[0] = %d", v)
				}
				if us, err := g.c.TimeGraph(2, func() error { return g.launchFill(12) }); err != nil || len(us) != 2 {
					t.Errorf("TimeGraph after the failure: %v, %v", us, err)
				}
				if v := g.word0(t); v != 12 {
					t.Errorf("replay after the failure: y[0] = %d", v)
				}
			})
		}
	}
}

// TestTimeGraphInstantiateAndReplayErrors: a failed instantiation destroys
// the graph (and has no executable graph to destroy); a failed replay
// destroys both, executable graph first; each once.
func TestTimeGraphInstantiateAndReplayErrors(t *testing.T) {
	for _, b := range []Backend{CUDA, HIP} {
		t.Run(string(b), func(t *testing.T) {
			g := newGraphFixture(t, b, func(f *fakeDriver) { f.instCode = 2 })
			g.log()
			_, err := g.c.TimeGraph(3, func() error { return g.launchFill(5) })
			sym := map[Backend]string{CUDA: "cuGraphInstantiateWithFlags", HIP: "hipGraphInstantiateWithFlags"}[b]
			if err == nil || !strings.Contains(err.Error(), "instantiate the captured graph: "+sym+": ") || !strings.Contains(err.Error(), "(2)") {
				t.Errorf("instantiate failure: %v", err)
			}
			if l, want := g.log(), []string{"begin", "record fill", "end", "instantiate", "graph-destroy"}; !reflect.DeepEqual(l, want) {
				t.Errorf("graph calls\n got %v\nwant %v", l, want)
			}
			if s := g.leftovers(); s != "" {
				t.Errorf("left behind: %s", s)
			}
			g.f.instCode = 0

			// A replay whose kernel fails: the first warm-up replay.
			_, err = g.c.TimeGraph(3, func() error {
				return g.c.Launch(g.failing, [3]uint32{1, 1, 1}, [3]uint32{1, 1, 1}, 0)
			})
			var de *Error
			if err == nil || !strings.Contains(err.Error(), "warm-up replay 0") || !errors.As(err, &de) || de.Code != 719 {
				t.Errorf("replay failure: %v", err)
			}
			if l, want := g.log(), []string{"begin", "record failing", "end", "instantiate", "launch", "exec-destroy", "graph-destroy"}; !reflect.DeepEqual(l, want) {
				t.Errorf("graph calls\n got %v\nwant %v", l, want)
			}
			if s := g.leftovers(); s != "" {
				t.Errorf("left behind: %s", s)
			}
		})
	}
}

// TestTimeGraphWithoutGraphSupport: a driver without the graph entry points
// still opens and times eager launches; TimeGraph names what is missing
// and touches nothing.
func TestTimeGraphWithoutGraphSupport(t *testing.T) {
	for _, b := range []Backend{CUDA, HIP} {
		t.Run(string(b), func(t *testing.T) {
			g := newGraphFixture(t, b, func(f *fakeDriver) { f.noGraph = true })
			g.log()
			_, err := g.c.TimeGraph(2, func() error {
				t.Error("callback called without graph support")
				return nil
			})
			want := map[Backend][]string{
				CUDA: {"cuStreamBeginCapture_v2", "cuStreamEndCapture", "cuGraphInstantiateWithFlags", "cuGraphLaunch", "cuGraphExecDestroy", "cuGraphDestroy"},
				HIP:  {"hipStreamBeginCapture", "hipStreamEndCapture", "hipGraphInstantiateWithFlags", "hipGraphLaunch", "hipGraphExecDestroy", "hipGraphDestroy"},
			}[b]
			if err == nil || !strings.Contains(err.Error(), strings.Join(want, ", ")) || !strings.Contains(err.Error(), "Time") {
				t.Errorf("missing graph support: %v", err)
			}
			if l := g.log(); len(l) != 0 {
				t.Errorf("graph calls without graph support: %v", l)
			}
			if us, err := g.c.Time(2, func() error { return g.launchFill(1) }); err != nil || len(us) != 2 {
				t.Errorf("eager Time: %v, %v", us, err)
			}
		})
	}
}

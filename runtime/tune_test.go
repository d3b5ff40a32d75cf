package runtime

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/kgen-dev/kgen/runtime/table"
)

// fakeTimer makes 64-lane, 4-row variants fastest, so the tuned pick
// differs from the heuristic one.
type fakeTimer struct{ calls int }

func (f *fakeTimer) Time(v *table.Variant, op Op) (float64, error) {
	f.calls++
	us := 100.0
	if v.Param("wg") == "64" {
		us -= 30
	}
	if v.Param("rows") == "4" {
		us -= 20
	}
	return us, nil
}

// slowStart is a device whose first `slow` timings run 3x slow (what NVIDIA's
// Vulkan driver did on fresh large ops in run 2026-12-02a), over times that
// make the 4-row variants fastest.
type slowStart struct {
	fakeTimer
	slow  int
	order []string
	fast  map[string]float64 // each variant's time outside the slow phase
}

func (s *slowStart) Time(v *table.Variant, op Op) (float64, error) {
	us, _ := s.fakeTimer.Time(v, op)
	s.order = append(s.order, v.Name)
	if s.fast == nil {
		s.fast = map[string]float64{}
	}
	s.fast[v.Name] = us
	if s.calls <= s.slow {
		us *= 3
	}
	return us, nil
}

// TestTuneRounds: one round in preference order crowns a variant for being
// timed after the slow phase; the second round, in reverse, times every
// candidate outside it, and each keeps its fastest median.
func TestTuneRounds(t *testing.T) {
	dev, err := ArchDevice("gfx1100")
	if err != nil {
		t.Fatal(err)
	}
	op := Op{Family: "gemv", Dtype: "bf16", M: 2, N: 4096, K: 4096}
	probe, err := TuneRounds(&fakeTimer{}, dev, []Op{op}, nil, 1)
	if err != nil {
		t.Fatal(err)
	}
	n := probe[0].Timed
	if n < 4 {
		t.Fatalf("%d candidates: too few to test the order", n)
	}
	one := &slowStart{slow: n - 1} // all but the last candidate of round one run slow
	r1, err := TuneRounds(one, dev, []Op{op}, nil, 1)
	if err != nil {
		t.Fatal(err)
	}
	last := one.order[n-1]
	if r1[0].Entry.Variant != last {
		t.Fatalf("one round: winner %s, want the last timed %s (the order artifact this guards against)", r1[0].Entry.Variant, last)
	}
	two := &slowStart{slow: n - 1}
	r2, err := TuneRounds(two, dev, []Op{op}, nil, 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(two.order) != 2*n || two.order[n] != two.order[n-1] || two.order[2*n-1] != two.order[0] {
		t.Fatalf("round two is not round one reversed: %v", two.order)
	}
	if e := r2[0].Entry; e.US != 80 || r2[0].Rounds != 2 {
		t.Fatalf("two rounds: winner %s at %.0f us, want a 4-row variant at 80 us", e.Variant, e.US)
	}
	if len(r2[0].Times) != n {
		t.Fatalf("%d times for %d candidates", len(r2[0].Times), n)
	}
	for name, us := range r2[0].Times {
		if us != two.fast[name] {
			t.Errorf("%s kept %.0f us, want its fast round's %.0f", name, us, two.fast[name])
		}
	}
}

func TestTuneCache(t *testing.T) {
	dev, err := ArchDevice("gfx1100")
	if err != nil {
		t.Fatal(err)
	}
	dev.Name, dev.Driver = "Test GPU", "test 1.0"
	op := Op{Family: "gemv", Dtype: "bf16", M: 2, N: 4096, K: 4096}
	cache := &TuneCache{Version: tuneVersion, Entries: map[string]*TuneEntry{}}
	ft := &fakeTimer{}
	res, err := Tune(ft, dev, []Op{op}, cache)
	if err != nil {
		t.Fatal(err)
	}
	e := res[0].Entry
	// gfx1100 emits no 64-lane tiles: the 4-row variants are the fastest.
	if e.US != 80 {
		t.Fatalf("winner %s at %.0f us, want a 4-row variant at 80 us", e.Variant, e.US)
	}
	if e.US >= e.HeurUS || ft.calls != DefaultTuneRounds*e.Candidates || e.Candidates < 2 || res[0].Rounds != DefaultTuneRounds {
		t.Fatalf("tune: %+v after %d timings", e, ft.calls)
	}
	// Every timed candidate's time is reported, the heuristic's included.
	times := res[0].Times
	if len(times) != e.Candidates || times[e.Heuristic] != e.HeurUS || times[e.Variant] != e.US {
		t.Fatalf("times %v, entry %+v", times, e)
	}
	for name, us := range times {
		if us < e.US {
			t.Errorf("%s at %.0f us beats the winner", name, us)
		}
	}
	path := filepath.Join(t.TempDir(), "tune.json")
	if err := cache.Save(path); err != nil {
		t.Fatal(err)
	}
	loaded, note := LoadTuneCache(path)
	if note != "" {
		t.Fatal(note)
	}
	UseTuneCache(loaded)
	defer UseTuneCache(nil)
	ch, err := Select(dev, op)
	if err != nil {
		t.Fatal(err)
	}
	if !ch.Tuned || ch.Variant.Name != e.Variant || ch.Heuristic.Name != e.Heuristic {
		t.Fatalf("Select with cache: tuned=%v %s (heuristic %s), want %s", ch.Tuned, ch.Variant.Name, ch.Heuristic.Name, e.Variant)
	}
	// Another device or op: no tuned pick.
	other := dev
	other.Name = "Other GPU"
	if ch, _ := Select(other, op); ch.Tuned {
		t.Fatal("a tuned pick leaked to another device")
	}
	// A stale entry (artifact changed) is ignored.
	for _, x := range loaded.Entries {
		x.SHA256 = "0000"
	}
	if ch, _ := Select(dev, op); ch.Tuned || ch.Variant != ch.Heuristic {
		t.Fatal("a stale tuning entry was trusted")
	}
	// A corrupt file is ignored, with a note.
	os.WriteFile(path, []byte("{not json"), 0o644)
	if c, note := LoadTuneCache(path); len(c.Entries) != 0 || note == "" {
		t.Fatalf("corrupt cache: %d entries, note %q", len(c.Entries), note)
	}
}

// TestTuneForced: KGEN_FORCE narrows the sweep as it narrows Select (the
// A/B runs of gen bench), the result says so, and nothing is cached: the
// winner of a narrowed sweep is not the op's fastest variant.
func TestTuneForced(t *testing.T) {
	dev, err := ArchDevice("nvidia")
	if err != nil {
		t.Fatal(err)
	}
	op := Op{Family: "mmvq", Dtype: "q6_k", M: 5, N: 4096, K: 14336}
	free, err := TuneRounds(&fakeTimer{}, dev, []Op{op}, nil, 1)
	if err != nil {
		t.Fatal(err)
	}
	if got := free[0].Heuristic.Param("tokens"); got != "5" || free[0].Forced != "" {
		t.Fatalf("without KGEN_FORCE: heuristic tokens %s, forced %q; want 5, none", got, free[0].Forced)
	}
	t.Setenv(ForceEnv, "mmvq:tokens=8")
	cache := &TuneCache{Version: tuneVersion, Entries: map[string]*TuneEntry{}}
	res, err := TuneRounds(&fakeTimer{}, dev, []Op{op}, cache, 1)
	if err != nil {
		t.Fatal(err)
	}
	if res[0].Forced != "mmvq:tokens=8" {
		t.Fatalf("Forced %q, want the override", res[0].Forced)
	}
	if len(res[0].Times) < 2 {
		t.Fatalf("%d variants timed: the narrowed sweep should still sweep rows and tiles", len(res[0].Times))
	}
	for name := range res[0].Times {
		if v := variantNamed(name); v == nil || v.Param("tokens") != "8" {
			t.Errorf("timed %s under KGEN_FORCE=mmvq:tokens=8", name)
		}
	}
	if len(cache.Entries) != 0 {
		t.Fatalf("a forced sweep was cached: %v", cache.SortedKeys())
	}
}

// preparing records what a Preparer timer is handed and when.
type preparing struct {
	fakeTimer
	events []string // "prepare N" (the list's length) or the timed name
	listed map[string]bool
}

func (p *preparing) Prepare(vs []*table.Variant, op Op) error {
	p.events = append(p.events, fmt.Sprintf("prepare %d", len(vs)))
	p.listed = map[string]bool{}
	for _, v := range vs {
		p.listed[v.Name] = true
	}
	return nil
}

func (p *preparing) Time(v *table.Variant, op Op) (float64, error) {
	p.events = append(p.events, v.Name)
	return p.fakeTimer.Time(v, op)
}

// TestTunePrepares: a Preparer timer gets an op's whole candidate list
// before the first candidate is timed (the Vulkan timer builds every
// pipeline then: NVIDIA's driver ran pipelines timed as each was built
// 2-5x slow), and the list is exactly what is timed.
func TestTunePrepares(t *testing.T) {
	dev, err := ArchDevice("gfx1100")
	if err != nil {
		t.Fatal(err)
	}
	op := Op{Family: "gemv", Dtype: "bf16", M: 2, N: 4096, K: 4096}
	p := &preparing{}
	res, err := TuneRounds(p, dev, []Op{op}, nil, 2)
	if err != nil {
		t.Fatal(err)
	}
	n := res[0].Timed
	if want := fmt.Sprintf("prepare %d", n); len(p.events) != 2*n+1 || p.events[0] != want {
		t.Fatalf("events %v: want %q, then %d timings", p.events, want, 2*n)
	}
	for _, name := range p.events[1:] {
		if !p.listed[name] {
			t.Errorf("%s timed but not prepared", name)
		}
	}
	if len(p.listed) != len(res[0].Times) {
		t.Errorf("%d prepared, %d timed", len(p.listed), len(res[0].Times))
	}
}

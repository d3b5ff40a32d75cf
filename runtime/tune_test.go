package runtime

import (
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
	if e.US >= e.HeurUS || ft.calls != e.Candidates || e.Candidates < 2 {
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

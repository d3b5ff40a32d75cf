package runtime

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"

	"github.com/kgen-dev/kgen/runtime/table"
)

// Timer times one variant serving one op on the actual device, in
// microseconds (median of repeated GPU-timed launches).
type Timer interface {
	Time(v *table.Variant, op Op) (float64, error)
}

// Preparer is a Timer that builds what timing needs ahead of the timing:
// TuneRounds hands it an op's whole candidate list before the first is
// timed, so no candidate is timed straight after its build (with a cold
// shader cache, NVIDIA's Vulkan driver ran pipelines timed as each was
// built 2-5x slow: run h100-2026-12-06k).
type Preparer interface {
	Prepare(vs []*table.Variant, op Op) error
}

// TuneEntry is one tuned op: the winner and what it beat.
type TuneEntry struct {
	Device     string  `json:"device"`
	Driver     string  `json:"driver"`
	Op         string  `json:"op"`
	Variant    string  `json:"variant"`
	Arch       string  `json:"arch"`
	SHA256     string  `json:"sha256"` // the winner's artifact hash when tuned
	US         float64 `json:"us"`
	Heuristic  string  `json:"heuristic"`
	HeurUS     float64 `json:"heuristic_us"`
	Candidates int     `json:"candidates"`
}

// TuneCache maps (device, driver, op) to the fastest variant measured.
// Entries whose variant is gone, whose artifact hash changed, or which are
// no longer eligible are ignored (and replaced by the next Tune); a file
// that does not parse is ignored whole, never trusted.
type TuneCache struct {
	Version int                   `json:"version"`
	Entries map[string]*TuneEntry `json:"entries"`
	mu      sync.Mutex
}

const tuneVersion = 1

// TuneCacheEnv names the tuning cache file; "off" disables tuned picks.
const TuneCacheEnv = "KGEN_TUNE_CACHE"

// DefaultTuneCachePath is $KGEN_TUNE_CACHE, else <user cache dir>/kgen/tune.json.
func DefaultTuneCachePath() string {
	if p := os.Getenv(TuneCacheEnv); p != "" {
		return p
	}
	if d, err := os.UserCacheDir(); err == nil {
		return filepath.Join(d, "kgen", "tune.json")
	}
	return filepath.Join(os.TempDir(), "kgen-tune.json")
}

func tuneKey(dev Device, op Op) string {
	return fmt.Sprintf("%s|%s|%s/%s|%s", dev.Name, dev.Driver, dev.Backend, dev.Arch, op)
}

// LoadTuneCache reads a cache file; a missing or corrupt file gives an
// empty cache (the second result says why it was discarded, if it was).
func LoadTuneCache(path string) (*TuneCache, string) {
	c := &TuneCache{Version: tuneVersion, Entries: map[string]*TuneEntry{}}
	b, err := os.ReadFile(path)
	if err != nil {
		return c, ""
	}
	var f TuneCache
	if err := json.Unmarshal(b, &f); err != nil {
		return c, fmt.Sprintf("%s: not a tune cache (%v); ignoring it", path, err)
	}
	if f.Version != tuneVersion {
		return c, fmt.Sprintf("%s: version %d, want %d; ignoring it", path, f.Version, tuneVersion)
	}
	for k, e := range f.Entries {
		if e != nil {
			c.Entries[k] = e
		}
	}
	return c, ""
}

// syncFile is (*os.File).Sync; a test replaces it to see what is synced
// and when.
var syncFile = (*os.File).Sync

// Save writes the cache atomically and durably: the temp file is synced
// before the rename (else a crash can leave the new name on empty or partial
// data) and the directory after it (else the rename itself can be lost).
func (c *TuneCache) Save(path string) error {
	c.mu.Lock()
	b, err := json.MarshalIndent(c, "", " ")
	c.mu.Unlock()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(path), ".tune-*")
	if err != nil {
		return err
	}
	if _, err := f.Write(append(b, '\n')); err != nil {
		f.Close()
		os.Remove(f.Name())
		return err
	}
	if err := syncFile(f); err != nil {
		f.Close()
		os.Remove(f.Name())
		return err
	}
	if err := f.Close(); err != nil {
		os.Remove(f.Name())
		return err
	}
	if err := os.Rename(f.Name(), path); err != nil {
		os.Remove(f.Name())
		return err
	}
	d, err := os.Open(filepath.Dir(path))
	if err != nil {
		return err
	}
	defer d.Close()
	return syncFile(d)
}

// lookup returns the tuned entry for op on dev if it is still valid: the
// variant exists in the table with the same artifact hash and is eligible
// (among cands, those not Excluded).
func (c *TuneCache) lookup(dev Device, op Op, cands []Candidate) (*Candidate, *TuneEntry) {
	if c == nil {
		return nil, nil
	}
	c.mu.Lock()
	if len(c.Entries) == 0 {
		c.mu.Unlock()
		return nil, nil
	}
	e := c.Entries[tuneKey(dev, op)]
	c.mu.Unlock()
	if e == nil {
		return nil, nil
	}
	for i := range cands {
		v := cands[i].Variant
		if cands[i].Excluded == "" && v.Name == e.Variant && v.Arch == e.Arch && v.Artifact.SHA256 == e.SHA256 {
			return &cands[i], e
		}
	}
	return nil, nil // stale: the table changed or the variant no longer serves this op
}

var (
	tuneMu     sync.Mutex
	tuneLoaded bool
	tuneCache  *TuneCache
)

// UseTuneCache sets the cache Select consults (nil: none).
func UseTuneCache(c *TuneCache) {
	tuneMu.Lock()
	defer tuneMu.Unlock()
	tuneCache, tuneLoaded = c, true
}

// activeTuneCache loads the default cache once, unless disabled.
func activeTuneCache() *TuneCache {
	tuneMu.Lock()
	defer tuneMu.Unlock()
	if !tuneLoaded {
		tuneLoaded = true
		if os.Getenv(TuneCacheEnv) != "off" {
			tuneCache, _ = LoadTuneCache(DefaultTuneCachePath())
		}
	}
	return tuneCache
}

// TuneResult reports one tuned op.
type TuneResult struct {
	Op        Op
	Entry     *TuneEntry
	Timed     int
	Rounds    int // times each was timed (its fastest median kept)
	Elapsed   time.Duration
	Heuristic *table.Variant
	// Times is every timed variant's median (us) by name, the heuristic
	// pick's included: what heuristic rules are evaluated against offline.
	// It is not stored in the tuning cache.
	Times map[string]float64
	// Forced is the KGEN_FORCE value that narrowed the sweep ("" when none
	// did); such a result is not cached.
	Forced string
}

// DefaultTuneRounds is how many rounds Tune times the candidates in.
// Two: on NVIDIA's Vulkan driver the candidates timed first on a freshly
// allocated op sometimes ran 2-5x slower than the same kernels later in
// the same sweep (run 2026-12-02a, bench/results/h200-2026-12-02a-select-notes.md),
// so a single pass in preference order can crown whichever came last.
const DefaultTuneRounds = 2

// Tune is TuneRounds with DefaultTuneRounds.
func Tune(t Timer, dev Device, ops []Op, cache *TuneCache) ([]TuneResult, error) {
	return TuneRounds(t, dev, ops, cache, DefaultTuneRounds)
}

// TuneRounds times the heuristic pick and every eligible candidate sharing
// its pack and tokens (rows, tile and workgroup swept: the axes the
// heuristic gets wrong most) for each op, and records the winner in the
// cache. KGEN_FORCE narrows the candidates as it narrows Select's (an A/B
// run: gen bench with KGEN_FORCE=mmvq:tokens=8 times the t8 tiles); a
// sweep so narrowed is never cached, since its winner is only the best of
// what the override left (TuneResult.Forced says it was). The list is
// timed rounds times (at least once), every other round in reverse order,
// and each variant keeps its fastest round's median: a
// slow phase of the device (clocks, a fresh allocation) then costs no
// candidate its place for having been timed during it. A Preparer timer
// gets the list first.
func TuneRounds(t Timer, dev Device, ops []Op, cache *TuneCache, rounds int) ([]TuneResult, error) {
	rounds = max(rounds, 1)
	var out []TuneResult
	for _, op := range ops {
		start := time.Now()
		ch, err := SelectWith(dev, op, Force())
		if err != nil {
			return out, fmt.Errorf("%s: %w", op, err)
		}
		h := ch.Heuristic
		list := []*table.Variant{h}
		for _, c := range ch.Candidates {
			v := c.Variant
			if c.Excluded != "" || v == h || v.Param("pack") != h.Param("pack") || v.Param("tokens") != h.Param("tokens") {
				continue
			}
			list = append(list, v)
		}
		if p, ok := t.(Preparer); ok {
			if err := p.Prepare(list, op); err != nil {
				return out, fmt.Errorf("%s: %w", op, err)
			}
		}
		times := map[string]float64{}
		for r := 0; r < rounds; r++ {
			for i := range list {
				v := list[i]
				if r%2 == 1 {
					v = list[len(list)-1-i]
				}
				us, err := t.Time(v, op)
				if err != nil {
					return out, fmt.Errorf("%s %s: %w", op, v.Name, err)
				}
				if prev, ok := times[v.Name]; !ok || us < prev {
					times[v.Name] = us
				}
			}
		}
		best, bus := h, times[h.Name]
		for _, v := range list[1:] {
			if us := times[v.Name]; us < bus {
				best, bus = v, us
			}
		}
		e := &TuneEntry{Device: dev.Name, Driver: dev.Driver, Op: op.String(), Variant: best.Name, Arch: best.Arch, SHA256: best.Artifact.SHA256,
			US: bus, Heuristic: h.Name, HeurUS: times[h.Name], Candidates: len(list)}
		if cache != nil && ch.Forced == "" {
			cache.mu.Lock()
			cache.Entries[tuneKey(dev, op)] = e
			cache.mu.Unlock()
		}
		out = append(out, TuneResult{Op: op, Entry: e, Timed: len(list), Rounds: rounds, Elapsed: time.Since(start), Heuristic: h, Times: times, Forced: ch.Forced})
	}
	return out, nil
}

// SortedKeys lists the cache's keys (for printing).
func (c *TuneCache) SortedKeys() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	ks := make([]string, 0, len(c.Entries))
	for k := range c.Entries {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// ForArch lists entries tuned for an arch and op on any device, for
// explaining an arch without its device at hand.
func (c *TuneCache) ForArch(arch string, op Op) []*TuneEntry {
	if c == nil {
		return nil
	}
	var out []*TuneEntry
	for _, k := range c.SortedKeys() {
		e := c.Entries[k]
		if e.Arch == arch && e.Op == op.String() {
			out = append(out, e)
		}
	}
	return out
}

// ActiveTuneCache is the cache Select consults (nil when disabled).
func ActiveTuneCache() *TuneCache { return activeTuneCache() }

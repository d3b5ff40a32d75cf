package runtime

import (
	"fmt"
	"sync"
)

// Selection memo. Select's answer is a function of the device, the op and
// the KGEN_FORCE override alone: the table, its rules and the arch facts are
// fixed when the program is built, and the tuning cache is applied after
// the memo (Select), so a tuned entry added later is seen at once. Hosts can
// therefore call Select per launch: the first call for a (device, op,
// override) evaluates every candidate's rules (about a millisecond on the
// largest groups); later ones cost a map lookup and a copy of the Choice
// (BenchmarkSelect reports both).
//
// The memo holds at most memoMax answers and is emptied when full (decode
// uses a few dozen shapes per model; a host sweeping shapes pays the
// uncached cost again, never unbounded memory). Errors are memoized too
// (they are as deterministic as picks). A Choice returned from the memo is
// the caller's own copy, but its Candidates (and their Keys) are shared
// with other callers and must not be modified; its slices are clipped, so
// appending to them copies.

const memoMax = 1 << 14

type memoKey struct {
	dev   Device
	op    Op
	force string // "" without an override, else the override's canonical form
}

type memoVal struct {
	ch  *Choice
	err error
}

var (
	memoMu sync.RWMutex
	memo   = map[memoKey]memoVal{}
)

func memoKeyOf(dev Device, op Op, force *Override) memoKey {
	k := memoKey{dev: dev, op: op}
	if force != nil {
		k.force = fmt.Sprintf("1|%s|%q|%s|%s", force.Family, force.Params, force.Name, force.Raw)
	}
	return k
}

// memoGet returns the memoized answer for (dev, op, force), a copy of the
// Choice; ok is false when there is none.
func memoGet(dev Device, op Op, force *Override) (*Choice, error, bool) {
	k := memoKeyOf(dev, op, force)
	memoMu.RLock()
	v, ok := memo[k]
	memoMu.RUnlock()
	if !ok {
		return nil, nil, false
	}
	return v.copy(), v.err, true
}

// memoPut records an answer and returns it as memoGet will.
func memoPut(dev Device, op Op, force *Override, ch *Choice, err error) (*Choice, error) {
	v := memoVal{ch: ch, err: err}
	memoMu.Lock()
	if len(memo) >= memoMax {
		memo = map[memoKey]memoVal{}
	}
	memo[memoKeyOf(dev, op, force)] = v
	memoMu.Unlock()
	return v.copy(), err
}

func (v memoVal) copy() *Choice {
	if v.ch == nil {
		return nil
	}
	c := *v.ch
	c.Reasons = c.Reasons[:len(c.Reasons):len(c.Reasons)]
	c.Candidates = c.Candidates[:len(c.Candidates):len(c.Candidates)]
	return &c
}

// resetMemo empties the memo (tests time the uncached path with it).
func resetMemo() {
	memoMu.Lock()
	memo = map[memoKey]memoVal{}
	memoMu.Unlock()
}

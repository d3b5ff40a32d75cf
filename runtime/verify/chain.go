package verify

import (
	"fmt"
	"strconv"

	kruntime "github.com/kgen-dev/kgen/runtime"
	"github.com/kgen-dev/kgen/runtime/vulkan"
)

// RunChain launches a chain's steps once (runtime.SelectChain: a fed_by
// family's producers, then its own launch), in order, in one submission
// with a barrier between the dispatches: each producer's out buffer is
// bound as the consumer's buffer it feeds. inputs[s] holds step s's in
// buffers by name (a fed buffer takes none); the consumer's out buffer and
// the fed buffers are filled with poison first, and the out buffer's bytes
// are returned.
func (r *VulkanRunner) RunChain(c *kruntime.Chain, inputs []map[string][]byte, poison uint32) ([]byte, error) {
	if len(c.Steps) == 0 || len(inputs) != len(c.Steps) {
		return nil, fmt.Errorf("chain of %d steps, inputs for %d", len(c.Steps), len(inputs))
	}
	last := len(c.Steps) - 1
	cons := c.Steps[last].Launch
	bufs := make([][]*vulkan.Buffer, len(c.Steps))
	slot := func(s int, pb kruntime.PlannedBuffer) string { return "chain" + strconv.Itoa(s) + ":" + slotName(pb) }
	// The consumer's buffers first: the producers bind theirs.
	var out *vulkan.Buffer
	fed := map[string]bool{}
	for _, st := range c.Steps[:last] {
		fed[st.Feeds] = true
	}
	for _, pb := range cons.Buffers {
		b, err := r.buffer(slot(last, pb), pb.Size, pb.Zero)
		if err != nil {
			return nil, err
		}
		bufs[last] = append(bufs[last], b)
		switch {
		case pb.Dir == "out":
			if err := b.Fill(poison); err != nil {
				return nil, err
			}
			out = b
		case fed[pb.Name]: // poisoned too: what the consumer reads, its producer wrote
			if err := b.Fill(poison); err != nil {
				return nil, err
			}
		case pb.Dir == "in":
			if err := upload(b, inputs[last], pb, cons); err != nil {
				return nil, err
			}
		}
	}
	if out == nil {
		return nil, fmt.Errorf("%s: the launch has no out buffer", cons.Variant.Name)
	}
	for s, st := range c.Steps[:last] {
		l := st.Launch
		for _, pb := range l.Buffers {
			if pb.Dir == "out" {
				cb := cons.Buffer(st.Feeds)
				if cb == nil || cb.Size != pb.Size {
					return nil, fmt.Errorf("%s's %s is not %s's %s (plan the chain with runtime.SelectChain)", l.Variant.Name, pb.Name, cons.Variant.Name, st.Feeds)
				}
				for j, x := range cons.Buffers {
					if x.Name == st.Feeds {
						bufs[s] = append(bufs[s], bufs[last][j])
					}
				}
				continue
			}
			b, err := r.buffer(slot(s, pb), pb.Size, pb.Zero)
			if err != nil {
				return nil, err
			}
			if pb.Dir == "in" {
				if err := upload(b, inputs[s], pb, l); err != nil {
					return nil, err
				}
			}
			bufs[s] = append(bufs[s], b)
		}
	}
	var ds []vulkan.Dispatch
	for s, st := range c.Steps {
		l := st.Launch
		sizes := make([]int, len(bufs[s]))
		for j, b := range bufs[s] {
			sizes[j] = b.Size()
		}
		if err := l.CheckBuffers(sizes); err != nil {
			return nil, err
		}
		p, err := r.Pipeline(l)
		if err != nil {
			return nil, err
		}
		ds = append(ds, vulkan.Dispatch{Pipeline: p, Buffers: bufs[s], Push: l.Push(), Groups: l.Groups})
	}
	if err := r.Dev.Run(ds...); err != nil {
		return nil, err
	}
	got := make([]byte, cons.Output().Size)
	if err := out.Download(got); err != nil {
		return nil, err
	}
	return got, nil
}

// upload writes a step's input for in buffer pb, which must be as planned.
func upload(b *vulkan.Buffer, inputs map[string][]byte, pb kruntime.PlannedBuffer, l *kruntime.Launch) error {
	data, ok := inputs[pb.Name]
	if !ok || len(data) != pb.Size {
		return fmt.Errorf("%s: buffer %s: %d bytes of input given, the launch needs %d", l.Variant.Name, pb.Name, len(data), pb.Size)
	}
	return b.Upload(data)
}

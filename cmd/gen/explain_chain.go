package main

import (
	"errors"
	"fmt"
	"io"

	kruntime "github.com/kgen-dev/kgen/runtime"
)

// explainChain explains op's whole decode step (runtime.SelectChain): each
// producer's pick for act, then op's, each as explain prints one pick.
// Outside a family's rules is a line and exit 0, as for one op; a family
// without fed_by, an act the producer does not take or a bad KGEN_FORCE
// is exit 2.
func explainChain(w io.Writer, dev kruntime.Device, op kruntime.Op, act string, useDevice bool) error {
	c, err := kruntime.SelectChain(dev, op, act)
	var ne *kruntime.NotEligibleError
	if errors.As(err, &ne) {
		fmt.Fprintln(w, err.Error())
		return nil
	}
	if errors.Is(err, kruntime.ErrForce) || errors.Is(err, kruntime.ErrInvalidOp) {
		return &exitError{2, err}
	}
	if err != nil {
		return err
	}
	cons := c.Consumer()
	fmt.Fprintf(w, "decode step: %d launches in order, activations %s\n", len(c.Steps), act)
	for i, s := range c.Steps {
		if s.Feeds != "" {
			fmt.Fprintf(w, "  %d. %s: %s writes %s (%d bytes), bound as %s's %s\n", i+1, s.Op, s.Choice.Variant.Name, s.Launch.Output().Name, s.Launch.Output().Size, cons.Op.Family, s.Feeds)
		} else {
			fmt.Fprintf(w, "  %d. %s: %s\n", i+1, s.Op, s.Choice.Variant.Name)
		}
	}
	for i, s := range c.Steps {
		fmt.Fprintf(w, "\nstep %d: %s\n", i+1, s.Op)
		printChoice(w, dev, s.Op, s.Choice, useDevice)
	}
	return nil
}

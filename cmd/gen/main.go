// Command gen is kgen's CLI: generate kernel variants into generated/, check
// that generated/ is up to date, list variants, verify them on a device and
// explain the runtime's pick. It only wires flags; the work is in gen/ and
// runtime/.
//
// Exit codes: 0 ok; 1 drift found, a compile or a verification failed;
// 2 invalid input (spec files, flags); 3 a needed tool is missing or not the
// pinned version.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/kgen-dev/kgen/gen"
)

// exitError carries an exit code through cobra.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

func exitCode(err error) int {
	var ee *exitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ee):
		return ee.code
	case gen.IsInputError(err):
		return 2
	case gen.IsToolError(err):
		return 3
	}
	return 1
}

func main() {
	os.Exit(run(os.Args[1:]))
}

func run(args []string) int { return runIO(args, os.Stdout, os.Stderr) }

// runIO is run with its output streams given, so tests can run gen in
// process and read what it printed.
func runIO(args []string, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	cmd := newRootCmd()
	cmd.SetArgs(args)
	cmd.SetOut(stdout)
	cmd.SetErr(stderr)
	err := cmd.ExecuteContext(ctx)
	code := exitCode(err)
	if err != nil {
		var ee *exitError
		if !(errors.As(err, &ee) && ee.err == errSilent) {
			fmt.Fprintln(stderr, "gen: "+err.Error())
		}
	}
	return code
}

// errSilent marks an exit whose message was already printed.
var errSilent = errors.New("")

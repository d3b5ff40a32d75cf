package main

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/kgen-dev/kgen/gen"
)

// TestMain lets the test binary double as the gen command: testscript puts a
// copy named "gen" on the scripts' PATH, and running it runs run().
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"gen": func() { os.Exit(run(os.Args[1:])) },
	})
}

// passEnv are the variables that choose kgen's tools; they are passed on to
// the scripts so that they use the toolchain the committed manifest was made
// with. Everything else starts from testscript's clean environment.
var passEnv = []string{"KGEN_CLANG", "KGEN_HIP_INCLUDE", "KGEN_GLSLANG"}

// TestScript runs the CLI scripts in testdata/script. Each script gets its
// own copy of the module's go.mod, templates/ and generated/ in $WORK/mod;
// all scripts share one compile cache ($KGEN_CACHE), warmed once before they
// start, so only the first compile of each source is slow. Set
// KGEN_TEST_CACHE to reuse a cache across test runs.
func TestScript(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	// Snapshot the module once, so every script starts from the same tree
	// even if the checkout changes while the tests run.
	snap := filepath.Join(t.TempDir(), "mod")
	for _, p := range []string{"go.mod", "templates", "generated"} {
		if err := copyTree(filepath.Join(root, p), filepath.Join(snap, p)); err != nil {
			t.Fatal(err)
		}
	}
	cache := os.Getenv("KGEN_TEST_CACHE")
	if cache == "" {
		cache = t.TempDir()
	}
	// Warm the shared cache in process before the scripts run in parallel,
	// so they do not all compile the same sources at once. A failure here
	// is only logged: the scripts report it with context.
	start := time.Now()
	if out, err := gen.Build(context.Background(), &gen.Options{Root: snap, CacheDir: cache}, nil); err != nil {
		t.Logf("warming the compile cache: %v", err)
	} else {
		t.Logf("warmed the compile cache in %s (%d compiled, %d cached)", time.Since(start).Round(time.Millisecond), out.Compiled, out.Cached)
	}

	testscript.Run(t, testscript.Params{
		Dir: filepath.Join("testdata", "script"),
		Setup: func(env *testscript.Env) error {
			mod := filepath.Join(env.WorkDir, "mod")
			if err := copyTree(snap, mod); err != nil {
				return err
			}
			home := filepath.Join(env.WorkDir, "home")
			if err := os.MkdirAll(home, 0o755); err != nil {
				return err
			}
			env.Setenv("HOME", home)
			env.Setenv("KGEN_CACHE", cache)
			// The real PATH (with testscript's bin dir holding gen in front),
			// so that glslangValidator, spirv-val and clang++-19 are found.
			env.Setenv("PATH", os.Getenv("PATH"))
			// For scripts that wrap glslangValidator in a fake.
			if p, err := exec.LookPath(cmp.Or(os.Getenv("KGEN_GLSLANG"), "glslangValidator")); err == nil {
				env.Setenv("REAL_GLSLANG", p)
			}
			for _, k := range passEnv {
				if v, ok := os.LookupEnv(k); ok {
					env.Setenv(k, v)
				}
			}
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"expectcode": cmdExpectCode,
			"flipbyte":   cmdFlipByte,
			"replace":    cmdReplace,
			"treehash":   cmdTreeHash,
			"validjson":  cmdValidJSON,
		},
	})
}

// expectcode N command [args...]
//
// Runs command like exec and fails unless it exits with status N exactly.
// stdout and stderr are kept for the stdout and stderr commands.
func cmdExpectCode(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("unsupported: ! expectcode (give the expected status instead)")
	}
	if len(args) < 2 {
		ts.Fatalf("usage: expectcode N command [args...]")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("expectcode: bad status %q", args[0])
	}
	got := 0
	if err := ts.Exec(args[1], args[2:]...); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			ts.Fatalf("expectcode: %v", err)
		}
		got = ee.ExitCode()
	}
	if got != want {
		ts.Fatalf("%s exited with status %d, want %d", strings.Join(args[1:], " "), got, want)
	}
}

// flipbyte FILE OFFSET
//
// Flips the low bit of the byte at OFFSET (negative: from the end).
func cmdFlipByte(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: flipbyte FILE OFFSET")
	}
	p := ts.MkAbs(args[0])
	b, err := os.ReadFile(p)
	ts.Check(err)
	off, err := strconv.Atoi(args[1])
	ts.Check(err)
	if off < 0 {
		off += len(b)
	}
	if off < 0 || off >= len(b) {
		ts.Fatalf("flipbyte: offset %s outside %s (%d bytes)", args[1], args[0], len(b))
	}
	b[off] ^= 1
	ts.Check(os.WriteFile(p, b, 0o644))
}

// replace FILE OLD NEW
//
// Replaces the first OLD in FILE with NEW; \n and \t in OLD and NEW stand
// for a newline and a tab. Fails if OLD is not there, so a script notices
// when the file it edits changes under it.
func cmdReplace(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: replace FILE OLD NEW")
	}
	unesc := strings.NewReplacer(`\n`, "\n", `\t`, "\t").Replace
	p := ts.MkAbs(args[0])
	b, err := os.ReadFile(p)
	ts.Check(err)
	old, repl := unesc(args[1]), unesc(args[2])
	if !strings.Contains(string(b), old) {
		ts.Fatalf("replace: %q not found in %s", old, args[0])
	}
	ts.Check(os.WriteFile(p, []byte(strings.Replace(string(b), old, repl, 1)), 0o644))
}

// treehash DIR
//
// Prints one SHA-256 over everything under DIR (relative paths, modes and
// file contents) and the entry count, for comparing a tree before and after:
//
//	treehash generated
//	cp stdout before
//	...
//	treehash generated
//	cmp stdout before
func cmdTreeHash(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: treehash DIR")
	}
	sum, n, err := hashTree(ts.MkAbs(args[0]))
	ts.Check(err)
	fmt.Fprintf(ts.Stdout(), "%s %d entries\n", sum, n)
}

// validjson FILE
//
// Fails unless FILE (or stdout/stderr of the last command) holds exactly one
// JSON value.
func cmdValidJSON(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 {
		ts.Fatalf("usage: validjson FILE")
	}
	dec := json.NewDecoder(strings.NewReader(ts.ReadFile(args[0])))
	var v any
	err := dec.Decode(&v)
	if err == nil {
		if _, err2 := dec.Token(); err2 != io.EOF {
			err = fmt.Errorf("trailing data after the JSON value")
		}
	}
	switch {
	case err != nil && !neg:
		ts.Fatalf("%s is not valid JSON: %v", args[0], err)
	case err == nil && neg:
		ts.Fatalf("%s is valid JSON", args[0])
	}
}

// copyTree copies the file or directory src to dst.
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		if !d.Type().IsRegular() {
			return fmt.Errorf("copy %s: not a regular file", p)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			return err
		}
		return os.WriteFile(target, b, 0o644)
	})
}

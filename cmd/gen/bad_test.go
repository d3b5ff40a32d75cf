package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/kgen-dev/kgen/gen"
)

// TestBadInput runs the bad-input corpus in testdata/bad: one txtar file per
// case. The archive's files replace or add files under templates/ of a copy
// of the module (paths relative to templates/); its comment holds the
// expectations and edits, one per line ('#' lines are prose):
//
//	exit: N                 expected exit code (default 2)
//	message: FRAGMENT       the error line contains FRAGMENT (required)
//	at: FILE:LINE:COL       the error names exactly this position (optional)
//	remove: GLOB            remove files matching GLOB under templates/ first
//	mkdir: DIR              create DIR under templates/
//	subst: FILE "OLD" "NEW" replace the first OLD in FILE by NEW (Go-quoted
//	                        strings, so NEW may hold any bytes); OLD must occur
//	repeat: FILE MARKER "TEXT" N
//	                        replace MARKER in FILE by TEXT repeated N times
//	symlink: LINK TARGET    create LINK under templates/ as a symbolic link
//	                        to TARGET (written as is: relative to LINK's
//	                        folder, or absolute), after the archive's files
//
// Each case runs `gen --check` and `gen` in process and asserts the exit
// code, exactly one error line naming templates/FILE:LINE:COL with the
// message fragment, nothing on stdout, generated/ byte-identical and no stage
// directory left, and no panic.
func TestBadInput(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	snap := filepath.Join(t.TempDir(), "mod")
	for _, p := range []string{"go.mod", "templates", "generated"} {
		if err := copyTree(filepath.Join(root, p), filepath.Join(snap, p)); err != nil {
			t.Fatal(err)
		}
	}
	// Cases that add an arch file rely on the module's own spec being valid.
	if _, err := gen.Load(&gen.Options{Root: snap}); err != nil {
		t.Fatalf("the module's own spec does not load, so the corpus cannot run: %v", err)
	}
	files, err := filepath.Glob(filepath.Join("testdata", "bad", "*.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(files)
	if len(files) == 0 {
		t.Fatal("no cases in testdata/bad")
	}
	cache := t.TempDir()
	var names []string
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".txtar")
		names = append(names, name)
		t.Run(name, func(t *testing.T) { runBadCase(t, file, snap, cache) })
	}
	t.Logf("bad-input corpus: %d cases: %s", len(names), strings.Join(names, " "))
}

// badCase is a parsed corpus file.
type badCase struct {
	exit    int
	message string
	at      string
	// pre edits (remove, mkdir) run before the archive's files are
	// written, post edits (subst, repeat) after.
	pre, post []func(tmpl string) error
}

func parseBadCase(file string) (*badCase, *txtar.Archive, error) {
	ar, err := txtar.ParseFile(file)
	if err != nil {
		return nil, nil, err
	}
	c := &badCase{exit: 2}
	for i, line := range strings.Split(string(ar.Comment), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		key, rest, ok := strings.Cut(line, ":")
		rest = strings.TrimSpace(rest)
		bad := func(why string) error { return fmt.Errorf("%s:%d: %s: %q", file, i+1, why, line) }
		if !ok {
			return nil, nil, bad("want KEY: VALUE")
		}
		switch key {
		case "exit":
			if c.exit, err = strconv.Atoi(rest); err != nil {
				return nil, nil, bad("bad exit code")
			}
		case "message":
			c.message = rest
		case "at":
			c.at = rest
		case "remove":
			glob := rest
			c.pre = append(c.pre, func(tmpl string) error {
				ms, err := filepath.Glob(filepath.Join(tmpl, filepath.FromSlash(glob)))
				if err != nil || len(ms) == 0 {
					return fmt.Errorf("remove: %s matches nothing", glob)
				}
				for _, m := range ms {
					if err := os.RemoveAll(m); err != nil {
						return err
					}
				}
				return nil
			})
		case "mkdir":
			dir := rest
			c.pre = append(c.pre, func(tmpl string) error { return os.MkdirAll(filepath.Join(tmpl, filepath.FromSlash(dir)), 0o755) })
		case "subst":
			f, args, _ := strings.Cut(rest, " ")
			q, err := quotedArgs(args, 2)
			if err != nil {
				return nil, nil, bad(err.Error())
			}
			c.post = append(c.post, func(tmpl string) error {
				return editFile(filepath.Join(tmpl, filepath.FromSlash(f)), func(b []byte) ([]byte, error) {
					if !bytes.Contains(b, []byte(q[0])) {
						return nil, fmt.Errorf("subst: %q not found in %s", q[0], f)
					}
					return bytes.Replace(b, []byte(q[0]), []byte(q[1]), 1), nil
				})
			})
		case "repeat":
			parts := strings.SplitN(rest, " ", 3)
			if len(parts) != 3 {
				return nil, nil, bad("want repeat: FILE MARKER \"TEXT\" N")
			}
			f, marker := parts[0], parts[1]
			q, err := strconv.QuotedPrefix(parts[2])
			if err != nil {
				return nil, nil, bad("TEXT must be Go-quoted")
			}
			text, _ := strconv.Unquote(q)
			n, err := strconv.Atoi(strings.TrimSpace(parts[2][len(q):]))
			if err != nil {
				return nil, nil, bad("bad count")
			}
			c.post = append(c.post, func(tmpl string) error {
				return editFile(filepath.Join(tmpl, filepath.FromSlash(f)), func(b []byte) ([]byte, error) {
					if !bytes.Contains(b, []byte(marker)) {
						return nil, fmt.Errorf("repeat: marker %s not found in %s", marker, f)
					}
					return bytes.Replace(b, []byte(marker), bytes.Repeat([]byte(text), n), 1), nil
				})
			})
		case "symlink":
			link, target, ok := strings.Cut(rest, " ")
			target = strings.TrimSpace(target)
			if !ok || link == "" || target == "" || strings.Contains(link, "..") || filepath.IsAbs(link) {
				return nil, nil, bad("want symlink: LINK TARGET, LINK a path under templates/")
			}
			c.post = append(c.post, func(tmpl string) error {
				p := filepath.Join(tmpl, filepath.FromSlash(link))
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					return err
				}
				return os.Symlink(target, p)
			})
		default:
			return nil, nil, bad("unknown key")
		}
	}
	if c.message == "" {
		return nil, nil, fmt.Errorf("%s: no message: line", file)
	}
	return c, ar, nil
}

func quotedArgs(s string, n int) ([]string, error) {
	var out []string
	for i := 0; i < n; i++ {
		s = strings.TrimSpace(s)
		q, err := strconv.QuotedPrefix(s)
		if err != nil {
			return nil, fmt.Errorf("want %d Go-quoted strings", n)
		}
		u, _ := strconv.Unquote(q)
		out = append(out, u)
		s = s[len(q):]
	}
	if strings.TrimSpace(s) != "" {
		return nil, fmt.Errorf("trailing text after %d quoted strings", n)
	}
	return out, nil
}

func editFile(p string, edit func([]byte) ([]byte, error)) error {
	b, err := os.ReadFile(p)
	if err != nil {
		return err
	}
	if b, err = edit(b); err != nil {
		return err
	}
	return os.WriteFile(p, b, 0o644)
}

// posLine is an error line naming a spec position.
var posLine = regexp.MustCompile(`templates/[^:]+:\d+:\d+: `)

func runBadCase(t *testing.T, file, snap, cache string) {
	c, ar, err := parseBadCase(file)
	if err != nil {
		t.Fatal(err)
	}
	mod := filepath.Join(t.TempDir(), "mod")
	if err := copyTree(snap, mod); err != nil {
		t.Fatal(err)
	}
	tmpl := filepath.Join(mod, "templates")
	for _, edit := range c.pre {
		if err := edit(tmpl); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range ar.Files {
		if filepath.IsAbs(f.Name) || strings.Contains(f.Name, "..") {
			t.Fatalf("archive file %q: want a path under templates/", f.Name)
		}
		p := filepath.Join(tmpl, filepath.FromSlash(f.Name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, edit := range c.post {
		if err := edit(tmpl); err != nil {
			t.Fatal(err)
		}
	}
	before := treeHash(t, filepath.Join(mod, "generated"))
	for _, args := range [][]string{{"--check"}, {}} {
		argv := append(args, "--root", mod, "--cache", cache, "-q")
		code, stdout, stderr := runInProcess(t, argv)
		what := "gen " + strings.Join(args, " ")
		if code != c.exit {
			t.Errorf("%s: exit %d, want %d\nstderr:\n%s", what, code, c.exit, stderr)
		}
		if stdout != "" {
			t.Errorf("%s: wrote to stdout:\n%s", what, stdout)
		}
		var errLines []string
		for _, l := range strings.Split(strings.TrimRight(stderr, "\n"), "\n") {
			switch {
			case posLine.MatchString(l):
				errLines = append(errLines, l)
			case l == "generated/ is unchanged" && len(args) == 0:
			default:
				t.Errorf("%s: unexpected stderr line %q", what, l)
			}
		}
		if len(errLines) != 1 {
			t.Errorf("%s: %d error lines naming templates/FILE:LINE:COL, want 1:\n%s", what, len(errLines), stderr)
			continue
		}
		l := errLines[0]
		if !strings.HasPrefix(l, "gen: templates/") {
			t.Errorf("%s: error line %q does not start with the position", what, l)
		}
		if !strings.Contains(l, c.message) {
			t.Errorf("%s: error line %q lacks %q", what, l, c.message)
		}
		if c.at != "" && !strings.HasPrefix(l, "gen: "+c.at+": ") {
			t.Errorf("%s: error line %q is not at %s", what, l, c.at)
		}
		if testing.Verbose() && len(args) == 0 {
			t.Log(l)
		}
	}
	if after := treeHash(t, filepath.Join(mod, "generated")); after != before {
		t.Errorf("generated/ changed: %s -> %s", before, after)
	}
	if left, _ := filepath.Glob(filepath.Join(mod, ".kgen-*")); len(left) > 0 {
		t.Errorf("left behind: %v", left)
	}
}

// runInProcess runs gen's run() with args, catching panics and bounding its
// time (a hang fails the test; the goroutine is left behind).
func runInProcess(t *testing.T, args []string) (code int, stdout, stderr string) {
	t.Helper()
	type result struct {
		code           int
		stdout, stderr string
		panicked       string
	}
	done := make(chan result, 1)
	go func() {
		var out, errb bytes.Buffer
		defer func() {
			if r := recover(); r != nil {
				done <- result{panicked: fmt.Sprintf("%v\n%s", r, debug.Stack())}
			}
		}()
		c := runIO(args, &out, &errb)
		done <- result{code: c, stdout: out.String(), stderr: errb.String()}
	}()
	select {
	case r := <-done:
		if r.panicked != "" {
			t.Fatalf("gen %s panicked: %s", strings.Join(args, " "), r.panicked)
		}
		return r.code, r.stdout, r.stderr
	case <-time.After(2 * time.Minute):
		t.Fatalf("gen %s did not finish in 2 minutes", strings.Join(args, " "))
	}
	return
}

// treeHash is one SHA-256 over everything under dir: relative paths, modes
// and contents (not dir's own mode, which a swap changes).
func treeHash(t testing.TB, dir string) string {
	t.Helper()
	sum, n, err := hashTree(dir)
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("%s (%d entries)", sum[:16], n)
}

// hashTree hashes every entry under dir (relative path, mode and, for
// regular files, content), in path order.
func hashTree(dir string) (sum string, entries int, err error) {
	var lines []string
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p == dir {
			return nil // its own mode changes when gen swaps a new tree in
		}
		rel, _ := filepath.Rel(dir, p)
		info, err := d.Info()
		if err != nil {
			return err
		}
		line := fmt.Sprintf("%s %v", filepath.ToSlash(rel), info.Mode())
		if info.Mode().IsRegular() {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			sum := sha256.Sum256(b)
			line += " " + hex.EncodeToString(sum[:])
		}
		lines = append(lines, line)
		return nil
	})
	if err != nil {
		return "", 0, err
	}
	sort.Strings(lines)
	h := sha256.New()
	for _, l := range lines {
		io.WriteString(h, l+"\n")
	}
	return hex.EncodeToString(h.Sum(nil)), len(lines), nil
}

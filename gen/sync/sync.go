// Package sync compares a rendered file set with generated/ and writes it
// atomically: everything is staged in a sibling directory, then swapped in
// with one rename, so generated/ is always either the old or the new tree.
package sync

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// Keep lists hand-written files that live in generated/ and are neither
// produced nor orphans.
var Keep = map[string]bool{"generate.go": true}

// Change is one difference between generated/ and what the spec produces.
type Change struct {
	Path string
	Kind string // "changed", "missing", "orphan"
	Old  []byte
	New  []byte
}

// Read returns every file under dir (relative slash paths), without Keep.
func Read(dir string) (map[string][]byte, error) {
	files := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) && p == dir {
				return fs.SkipAll
			}
			return err
		}
		if d.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		if Keep[rel] {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		files[rel] = b
		return nil
	})
	return files, err
}

// Diff compares want with the files in dir.
func Diff(dir string, want map[string][]byte) ([]Change, error) {
	have, err := Read(dir)
	if err != nil {
		return nil, err
	}
	var out []Change
	for p, w := range want {
		h, ok := have[p]
		switch {
		case !ok:
			out = append(out, Change{Path: p, Kind: "missing", New: w})
		case !bytes.Equal(h, w):
			out = append(out, Change{Path: p, Kind: "changed", Old: h, New: w})
		}
	}
	for p, h := range have {
		if _, ok := want[p]; !ok {
			out = append(out, Change{Path: p, Kind: "orphan", Old: h})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, nil
}

const (
	stagePrefix = ".kgen-stage-"
	oldPrefix   = ".kgen-old-"
)

// Recover removes what an interrupted write left beside dir: staging
// directories, and an old tree once the new one is in place. If dir itself
// is missing but an old tree exists (killed between the two renames of the
// fallback path), the old tree is put back.
func Recover(dir string) error {
	parent, base := filepath.Dir(dir), filepath.Base(dir)
	entries, err := os.ReadDir(parent)
	if err != nil {
		return err
	}
	_, statErr := os.Stat(dir)
	for _, e := range entries {
		name := e.Name()
		if !strings.HasPrefix(name, stagePrefix+base+"-") && !strings.HasPrefix(name, oldPrefix+base+"-") {
			continue
		}
		p := filepath.Join(parent, name)
		if strings.HasPrefix(name, oldPrefix) && errors.Is(statErr, fs.ErrNotExist) {
			if err := os.Rename(p, dir); err != nil {
				return err
			}
			statErr = nil
			continue
		}
		if err := os.RemoveAll(p); err != nil {
			return err
		}
	}
	return nil
}

// Write makes dir hold exactly want (plus the Keep files already there).
// Unchanged files are hard-linked into the stage, so their bytes and times
// stay as they were; if nothing changed, nothing is touched. It returns the
// number of files written (changed or new) and removed.
func Write(dir string, want map[string][]byte) (written, removed int, err error) {
	changes, err := Diff(dir, want)
	if err != nil {
		return 0, 0, err
	}
	if len(changes) == 0 {
		return 0, 0, nil
	}
	parent, base := filepath.Dir(dir), filepath.Base(dir)
	stage, err := os.MkdirTemp(parent, stagePrefix+base+"-")
	if err != nil {
		return 0, 0, err
	}
	defer os.RemoveAll(stage)  // after a swap this holds the old tree
	mode := os.FileMode(0o755) // MkdirTemp makes 0700; keep generated/'s own mode
	if st, err := os.Stat(dir); err == nil {
		mode = st.Mode().Perm()
	}
	if err := os.Chmod(stage, mode); err != nil {
		return 0, 0, err
	}
	changed := map[string]bool{}
	for _, c := range changes {
		changed[c.Path] = true
		if c.Kind == "orphan" {
			removed++
		}
	}
	put := func(rel string, data []byte) error {
		dst := filepath.Join(stage, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		if !changed[rel] {
			if err := os.Link(filepath.Join(dir, filepath.FromSlash(rel)), dst); err == nil {
				return nil
			}
		}
		written++
		return writeFile(dst, data)
	}
	for rel, data := range want {
		if err := put(rel, data); err != nil {
			return 0, 0, err
		}
	}
	for k := range Keep {
		src := filepath.Join(dir, k)
		if _, err := os.Stat(src); err == nil {
			if err := os.Link(src, filepath.Join(stage, k)); err != nil {
				return 0, 0, err
			}
		}
	}
	if err := syncDir(stage); err != nil {
		return 0, 0, err
	}
	if err := swap(stage, dir); err != nil {
		return 0, 0, err
	}
	return written, removed, nil
}

func writeFile(p string, data []byte) error {
	f, err := os.OpenFile(p, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func syncDir(p string) error {
	d, err := os.Open(p)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// swap puts stage in dir's place. With renameat2(RENAME_EXCHANGE) the two
// trees trade places in one atomic step; elsewhere dir is moved aside first
// (Recover puts it back if a kill lands between the two renames).
func swap(stage, dir string) error {
	if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
		return os.Rename(stage, dir)
	}
	err := unix.Renameat2(unix.AT_FDCWD, stage, unix.AT_FDCWD, dir, unix.RENAME_EXCHANGE)
	if err == nil {
		return nil
	}
	if !errors.Is(err, syscall.ENOSYS) && !errors.Is(err, syscall.EINVAL) && !errors.Is(err, syscall.EXDEV) {
		return fmt.Errorf("swap %s into %s: %w", stage, dir, err)
	}
	old := filepath.Join(filepath.Dir(dir), oldPrefix+filepath.Base(dir)+"-"+filepath.Base(stage)[len(stagePrefix+filepath.Base(dir)+"-"):])
	if err := os.Rename(dir, old); err != nil {
		return err
	}
	if err := os.Rename(stage, dir); err != nil {
		os.Rename(old, dir)
		return err
	}
	return os.RemoveAll(old)
}

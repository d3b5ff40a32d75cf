package spec_test

import (
	"errors"
	"io/fs"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/kgen-dev/kgen/gen/spec"
	"github.com/kgen-dev/kgen/templates"
)

// realFS copies kgen's templates tree (as compiled in) into a MapFS.
func realFS(t testing.TB) fstest.MapFS {
	m := fstest.MapFS{}
	err := fs.WalkDir(templates.FS, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(templates.FS, p)
		m[p] = &fstest.MapFile{Data: b}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// fuzzArch is the file the fuzzer's arch input goes to; its seeds are the
// real arch files renamed.
const fuzzArch = "archs/gfx1201.yaml"

// loadBounded runs Load and fails the test if it takes too long, panics,
// or returns an error that is not a positioned *spec.Error.
func loadBounded(t *testing.T, fsys fs.FS) (*spec.Spec, error) {
	type result struct {
		s   *spec.Spec
		err error
		p   any
	}
	done := make(chan result, 1)
	go func() {
		defer func() {
			if p := recover(); p != nil {
				done <- result{p: p}
			}
		}()
		s, err := spec.Load(fsys, "templates")
		done <- result{s: s, err: err}
	}()
	select {
	case r := <-done:
		if r.p != nil {
			t.Fatalf("Load panicked: %v", r.p)
		}
		if r.err != nil {
			var se *spec.Error
			if !errors.As(r.err, &se) {
				t.Fatalf("Load returned %T, not *spec.Error: %v", r.err, r.err)
			}
			if se.Pos.Line < 1 || se.Pos.Col < 1 || !strings.HasPrefix(se.Pos.File, "templates/") {
				t.Fatalf("error without a position: %v", r.err)
			}
			if strings.ContainsAny(r.err.Error(), "\n\r") {
				t.Fatalf("error spans lines: %q", r.err.Error())
			}
		}
		return r.s, r.err
	case <-time.After(10 * time.Second):
		t.Fatalf("Load took more than 10s")
	}
	return nil, nil
}

// FuzzLoad feeds arbitrary bytes to the loader as kernels.yaml (asArch
// false) or as an arch file (true) beside the real templates: no panic, no
// hang, and every error is one line naming templates/FILE:LINE:COL.
func FuzzLoad(f *testing.F) {
	base := realFS(f)
	f.Add(false, base[spec.KernelsFile].Data)
	archs, _ := fs.Glob(base, spec.ArchDir+"/*.yaml")
	for _, a := range archs {
		stem := strings.TrimSuffix(strings.TrimPrefix(a, spec.ArchDir+"/"), ".yaml")
		f.Add(true, []byte(strings.Replace(string(base[a].Data), "arch: "+stem, "arch: gfx1201", 1)))
	}
	f.Fuzz(func(t *testing.T, asArch bool, data []byte) {
		m := fstest.MapFS{}
		for k, v := range base {
			m[k] = v
		}
		if asArch {
			m[fuzzArch] = &fstest.MapFile{Data: data}
		} else {
			m[spec.KernelsFile] = &fstest.MapFile{Data: data}
		}
		s, err := loadBounded(t, m)
		if err != nil {
			return
		}
		// What loaded must hold the grammar's promises.
		for _, fam := range s.Families {
			for _, ax := range fam.Axes {
				if len(ax.Values) == 0 {
					t.Fatalf("family %s axis %s has no values", fam.Name, ax.Name)
				}
			}
		}
		for _, a := range s.Archs {
			if strings.ContainsAny(a.Name, "/.\\\n\x00") || strings.ContainsAny(a.Doc, "\\\n\r\x00") {
				t.Fatalf("arch %q (doc %q) passed the grammar", a.Name, a.Doc)
			}
		}
		for _, fam := range s.Families {
			if strings.ContainsAny(fam.Doc, "\\\n\r\x00") || strings.Contains(fam.Doc, "*/") {
				t.Fatalf("family %s doc %q passed the grammar", fam.Name, fam.Doc)
			}
		}
	})
}

package gen

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// citeRe matches a cited project document (a .md file under docs/), or
// one of the shared/reference/ notes kgen was written from, which are not
// part of the repository.
var citeRe = regexp.MustCompile(`\b(?:docs|shared/reference)/[A-Za-z0-9_./-]+\.md\b`)

// citeExempt are files whose citations of shared/reference/ are allowed
// (none: every citation points into the repository).
var citeExempt = map[string]bool{}

// TestCitedDocsExist: every document the sources, templates, generated
// files and docs cite is in the repository, so a user who clones kgen can
// read the definitions it points at.
func TestCitedDocsExist(t *testing.T) {
	root, err := FindRoot(".")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if strings.HasPrefix(d.Name(), ".") && rel != "." || rel == "shared" || rel == "generated/spirv" {
				return filepath.SkipDir
			}
			return nil
		}
		if citeExempt[rel] {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for _, c := range citeRe.FindAllString(string(b), -1) {
			n++
			if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(c))); err != nil {
				t.Errorf("%s cites %s, which is not in the repository", rel, c)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		t.Fatal("no citations found: the pattern or the walk is wrong")
	}
}

package main

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Result files may be committed gzip-compressed (NAME.gz beside or instead
// of NAME): the device tool copies the whole tracked tree to the GPU
// machine under a size limit, and bench/results is most of it.

// readResult reads path, or path.gz when path does not exist (or path
// itself when it names a .gz file), uncompressed.
func readResult(path string) ([]byte, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) && !strings.HasSuffix(path, ".gz") {
		b, err = os.ReadFile(path + ".gz")
		path += ".gz"
	}
	if err != nil || !strings.HasSuffix(path, ".gz") {
		return b, err
	}
	z, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	return io.ReadAll(z)
}

// globResults is filepath.Glob of pattern and pattern.gz, the compressed
// names without their .gz (readResult finds them), sorted, each once.
func globResults(pattern string) []string {
	plain, _ := filepath.Glob(pattern)
	gz, _ := filepath.Glob(pattern + ".gz")
	seen := map[string]bool{}
	var out []string
	for _, f := range append(plain, gz...) {
		f = strings.TrimSuffix(f, ".gz")
		if !seen[f] {
			seen[f] = true
			out = append(out, f)
		}
	}
	sort.Strings(out)
	return out
}

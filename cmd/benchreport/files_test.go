package main

import (
	"bytes"
	"compress/gzip"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
)

func TestResultsReadGzipped(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "r-a.json"), []byte(`{"x":1}`), 0o644); err != nil {
		t.Fatal(err)
	}
	var z bytes.Buffer
	w := gzip.NewWriter(&z)
	w.Write([]byte(`{"x":2}`))
	w.Close()
	if err := os.WriteFile(filepath.Join(dir, "r-b.json.gz"), z.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	got := globResults(filepath.Join(dir, "r-*.json"))
	want := []string{filepath.Join(dir, "r-a.json"), filepath.Join(dir, "r-b.json")}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("globResults = %v, want %v", got, want)
	}
	for i, p := range append(want, filepath.Join(dir, "r-b.json.gz")) {
		var v struct{ X int }
		if !read(p, &v) || v.X != min(i, 1)+1 {
			t.Errorf("read(%s) = %+v", p, v)
		}
	}
	if _, err := readResult(filepath.Join(dir, "r-c.json")); !os.IsNotExist(err) {
		t.Errorf("readResult of a missing file: %v, want not-exist", err)
	}
}

// The device tool copies the tracked tree (under 64 MiB with what a run
// carries): large result files go in compressed.
func TestResultsLargeFilesCompressed(t *testing.T) {
	dir := filepath.Join("..", "..", "bench", "results")
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		name := e.Name()
		info, err := e.Info()
		if err != nil {
			t.Fatal(err)
		}
		json := filepath.Ext(name) == ".json" && info.Size() >= 150000
		sass := filepath.Ext(name) == ".txt" && strings.Contains(name, "sass-")
		if json || sass {
			t.Errorf("bench/results/%s (%d bytes): commit it compressed (gzip -9 -n bench/results/%s; benchreport and bench/*.py read NAME.gz as NAME)", name, info.Size(), name)
		}
	}
}

// A device call costs minutes of a 30-minute budget: the run scripts must at
// least parse, and the scripts they name must exist.
func TestBenchScriptsParse(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Fatal("bash not found: the bench scripts are bash")
	}
	dir := filepath.Join("..", "..", "bench")
	scripts, err := filepath.Glob(filepath.Join(dir, "*.sh"))
	if err != nil || len(scripts) == 0 {
		t.Fatalf("no bench/*.sh (%v)", err)
	}
	named := regexp.MustCompile(`bench/([a-z0-9][a-z0-9_.-]*\.(?:sh|py|yaml))`)
	for _, s := range scripts {
		if out, err := exec.Command(bash, "-n", s).CombinedOutput(); err != nil {
			t.Errorf("bash -n %s: %v\n%s", s, err, out)
		}
		src, err := os.ReadFile(s)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range named.FindAllSubmatch(src, -1) {
			if _, err := os.Stat(filepath.Join(dir, string(m[1]))); err != nil {
				t.Errorf("%s names bench/%s, which does not exist", s, m[1])
			}
		}
	}
}

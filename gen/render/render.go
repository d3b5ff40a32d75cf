// Package render expands the family templates (text/template) into HIP
// sources, one per family and arch, and GLSL sources, one per SPIR-V blob.
package render

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	pathpkg "path"
	"sort"
	"strings"
	"text/template"

	"github.com/kgen-dev/kgen/gen/expand"
	"github.com/kgen-dev/kgen/gen/spec"
)

// HeaderFile is the portability header under templates/include, copied
// beside the HIP sources.
const HeaderFile = "include/kgen_hip.h"

// PartialSuffix names template partials: files of {{define}}s in a family's
// template folder, parsed into every template of that folder.
const PartialSuffix = ".inc.tmpl"

// Kind of a rendered source.
const (
	KindHIP    = "hip"
	KindGLSL   = "glsl"
	KindHeader = "header"
)

// Source is one rendered text file destined for generated/.
type Source struct {
	Path string // relative to generated/, e.g. hip/gemv_gfx1200.hip
	Kind string
	Text []byte
	// InputsHash is the SHA-256 of what the source came from: its template
	// (with partials and the header), kernels.yaml and, for a HIP source,
	// its arch's file.
	InputsHash string
	Family     string
	Arch       string            // HIP: the arch it targets
	Variants   []*expand.Variant // the variants it holds
	Blob       string            // GLSL: the blob stem
}

// Render renders every source for the variants.
func Render(s *spec.Spec, fsys fs.FS, variants []*expand.Variant) ([]*Source, error) {
	header, err := fs.ReadFile(fsys, HeaderFile)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", HeaderFile, err)
	}
	// Each source's inputs are what it is rendered from: its template (with
	// partials and the portability header), kernels.yaml (families, dtypes),
	// and for a HIP source its arch's file. A GLSL blob is rendered from the
	// family and its baked parameters only, so no arch file is an input:
	// adding an arch changes the entries of its own sources, not every one
	// (manifest.json inputs_sha256).
	kernelsHash := hashFiles(map[string][]byte{spec.KernelsFile: s.Files[spec.KernelsFile]})
	archHash := func(a *spec.Arch) string {
		name := spec.ArchDir + "/" + a.Name + ".yaml"
		return hashFiles(map[string][]byte{spec.KernelsFile: s.Files[spec.KernelsFile], name: s.Files[name]})
	}
	tmpls := map[string]*template.Template{}
	tmplHash := map[string]string{}
	load := func(path string) (*template.Template, error) {
		if t, ok := tmpls[path]; ok {
			return t, nil
		}
		b, err := fs.ReadFile(fsys, path)
		if err != nil {
			return nil, err
		}
		t, err := template.New(path).Option("missingkey=error").Funcs(FuncMap).Parse(string(b))
		if err != nil {
			return nil, fmt.Errorf("template %s: %w", path, err)
		}
		// Partials (*.inc.tmpl beside the template) hold {{define}}s shared
		// by a folder's templates; they are inputs of what uses them.
		parts, err := fs.Glob(fsys, pathpkg.Join(pathpkg.Dir(path), "*"+PartialSuffix))
		if err != nil {
			return nil, err
		}
		hashed := [][]byte{b, header}
		for _, pp := range parts {
			pb, err := fs.ReadFile(fsys, pp)
			if err != nil {
				return nil, err
			}
			if _, err := t.New(pp).Parse(string(pb)); err != nil {
				return nil, fmt.Errorf("template %s: %w", pp, err)
			}
			hashed = append(hashed, []byte(pp), pb)
		}
		tmpls[path] = t
		tmplHash[path] = sum(hashed...)
		return t, nil
	}

	var out []*Source
	out = append(out, &Source{Path: "hip/kgen_hip.h", Kind: KindHeader, Text: withGeneratedLine(header), InputsHash: sum(header)})

	// Group: HIP by (family, arch); GLSL by (family, blob).
	hipGroups := map[groupKey][]*expand.Variant{}
	blobGroups := map[groupKey][]*expand.Variant{}
	for _, v := range variants {
		switch v.Arch.Backend {
		case spec.BackendHIP:
			k := groupKey{v.Family.Name, v.Arch.Name}
			hipGroups[k] = append(hipGroups[k], v)
		case spec.BackendVulkan:
			k := groupKey{v.Family.Name, v.Blob}
			blobGroups[k] = append(blobGroups[k], v)
		}
	}
	for _, k := range sortedGroups(hipGroups) {
		vs := hipGroups[k]
		f, a := vs[0].Family, vs[0].Arch
		path := f.Templates[spec.BackendHIP]
		t, err := load(path)
		if err != nil {
			return nil, err
		}
		data := &HIPFile{Family: f, Arch: a}
		for _, v := range vs {
			data.Variants = append(data.Variants, newHIPKernel(s, v))
		}
		var buf bytes.Buffer
		if err := t.Execute(&buf, data); err != nil {
			return nil, fmt.Errorf("render %s for %s: %w", path, a.Name, err)
		}
		out = append(out, &Source{
			Path: fmt.Sprintf("hip/%s_%s.hip", f.Name, a.Name), Kind: KindHIP, Text: buf.Bytes(),
			InputsHash: sum([]byte(tmplHash[path]), []byte(archHash(a))), Family: f.Name, Arch: a.Name, Variants: vs,
		})
	}
	for _, k := range sortedGroups(blobGroups) {
		vs := blobGroups[k]
		f := vs[0].Family
		path := f.Templates[spec.BackendVulkan]
		t, err := load(path)
		if err != nil {
			return nil, err
		}
		data, err := newGLSLBlob(s, vs[0])
		if err != nil {
			return nil, err
		}
		var buf bytes.Buffer
		if err := t.Execute(&buf, data); err != nil {
			return nil, fmt.Errorf("render %s for blob %s: %w", path, vs[0].Blob, err)
		}
		out = append(out, &Source{
			Path: fmt.Sprintf("glsl/%s.comp", vs[0].Blob), Kind: KindGLSL, Text: buf.Bytes(),
			InputsHash: sum([]byte(tmplHash[path]), []byte(kernelsHash)), Family: f.Name, Variants: vs, Blob: vs[0].Blob,
		})
	}
	return out, nil
}

func withGeneratedLine(b []byte) []byte {
	return append([]byte("// Code generated by kgen from templates/include/kgen_hip.h. DO NOT EDIT.\n"), b...)
}

func sum(parts ...[]byte) string {
	h := sha256.New()
	for _, p := range parts {
		fmt.Fprintf(h, "%d:", len(p))
		h.Write(p)
	}
	return hex.EncodeToString(h.Sum(nil))
}

func hashFiles(files map[string][]byte) string {
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	var parts [][]byte
	for _, n := range names {
		parts = append(parts, []byte(n), files[n])
	}
	return sum(parts...)
}

type groupKey struct{ fam, group string }

func sortedGroups(m map[groupKey][]*expand.Variant) []groupKey {
	ks := make([]groupKey, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Slice(ks, func(i, j int) bool {
		if ks[i].fam != ks[j].fam {
			return ks[i].fam < ks[j].fam
		}
		return ks[i].group < ks[j].group
	})
	return ks
}

// FuncMap holds every helper the templates use.
var FuncMap = template.FuncMap{
	"upper":    strings.ToUpper,
	"elemBody": elemBody,
}

// elemBody is the GLSL body decoding element j of loaded words for a type.
func elemBody(t string) (string, error) {
	switch t {
	case "f32":
		return "return uintBitsToFloat(v[j]);", nil
	case "bf16":
		return "return uintBitsToFloat(((v[j >> 1] >> ((j & 1u) * 16u)) & 0xFFFFu) << 16);", nil
	case "f16":
		return "return unpackHalf2x16(v[j >> 1] >> ((j & 1u) * 16u)).x;", nil
	case "e4m3":
		return "return e4m3pair(v[j >> 2] >> ((j & 2u) * 8u), j & 1u);", nil
	}
	return "", fmt.Errorf("no GLSL decoder for element type %q", t)
}

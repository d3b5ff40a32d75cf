package spec

import (
	"fmt"
	"strings"

	"github.com/goccy/go-yaml"

	"github.com/kgen-dev/kgen/runtime/expr"
)

// Feed says that an in buffer of a family's launch is the output of
// another family's launch (fed_by in templates/kernels.yaml): the mmvq
// family's X is the Q8_1 rows quant_q8_1 writes. The producer's op is
// {Family, the dtype of the values it takes, M, N, K}, its shape given as
// expressions of the consumer's op (m, n, k); runtime.SelectChain selects
// and plans both launches, the producer's out buffer bound as Buffer.
type Feed struct {
	Buffer  string // the consumer's in buffer
	Family  string // the producer
	M, N, K *expr.Expr
	Pos     Pos // of fed_by.BUFFER
}

// FeedNames are the names a feed's shape expressions see: the consumer's op.
var FeedNames = []string{"m", "n", "k"}

type rawFeed struct {
	Family string `yaml:"family"`
	M      string `yaml:"m"`
	N      string `yaml:"n"`
	K      string `yaml:"k"`
}

// feeds validates a family's fed_by: each key an in buffer of its launch
// contract, each producer a family name and its shape expressions over the
// consumer's op. In the order of the contract's buffers. That the producer
// exists and writes what the buffer holds is checked once every family is
// loaded (checkFeeds).
func (l *loader) feeds(f *Family, raw map[string]*rawFeed, at func(pathFn) Pos) ([]*Feed, error) {
	if len(raw) == 0 {
		return nil, nil
	}
	here := at(func(b *yaml.PathBuilder) *yaml.PathBuilder { return b.Child("fed_by") })
	if f.Launch == nil {
		return nil, &Error{here, "fed_by names buffers of the launch contract, and the family has none"}
	}
	for _, name := range sortedKeys(raw) {
		ok := false
		for _, b := range f.Launch.Buffers {
			ok = ok || b.Name == name && b.Dir == "in"
		}
		if !ok {
			var ins []string
			for _, b := range f.Launch.Buffers {
				if b.Dir == "in" {
					ins = append(ins, b.Name)
				}
			}
			return nil, &Error{at(func(b *yaml.PathBuilder) *yaml.PathBuilder { return b.Child("fed_by").Child(name) }),
				fmt.Sprintf("fed_by %s: not an in buffer of the family's launch contract; allowed: %s", name, strings.Join(ins, ", "))}
		}
	}
	decl := expr.Decl{Names: map[string]bool{}, Funcs: dtypeFuncNames()}
	for _, n := range FeedNames {
		decl.Names[n] = true
	}
	var out []*Feed
	for _, b := range f.Launch.Buffers {
		rf, ok := raw[b.Name]
		if !ok {
			continue
		}
		fp := func(key string) Pos {
			return at(func(pb *yaml.PathBuilder) *yaml.PathBuilder {
				pb = pb.Child("fed_by").Child(b.Name)
				if key != "" {
					pb = pb.Child(key)
				}
				return pb
			})
		}
		if rf == nil || !identRe.MatchString(rf.Family) {
			return nil, &Error{fp(""), fmt.Sprintf("fed_by %s: want {family: FAMILY, m: EXPR, [n: EXPR,] k: EXPR}, the producing family and its op over this family's m, n, k", b.Name)}
		}
		if rf.Family == f.Name {
			return nil, &Error{fp("family"), fmt.Sprintf("fed_by %s: family %s cannot feed itself", b.Name, f.Name)}
		}
		fd := &Feed{Buffer: b.Name, Family: rf.Family, Pos: fp("family")}
		if rf.N == "" {
			rf.N = "1"
		}
		var err error
		for _, x := range []struct {
			key, src string
			dst      **expr.Expr
		}{{"m", rf.M, &fd.M}, {"n", rf.N, &fd.N}, {"k", rf.K, &fd.K}} {
			if *x.dst, err = l.contractExpr(x.src, decl, fp(x.key), "fed_by "+b.Name+" "+x.key); err != nil {
				return nil, err
			}
		}
		out = append(out, fd)
	}
	return out, nil
}

// elemsOf resolves a buffer's elem over a family's dtypes: weight and act
// name the dtype's element types (or block formats), anything else is
// itself. It returns the elem per dtype value, in axis order.
func elemsOf(s *Spec, f *Family, elem string) ([]string, []string) {
	ax := f.Axis("dtype")
	if ax == nil || elem != "weight" && elem != "act" {
		return []string{""}, []string{elem}
	}
	var dts, out []string
	for _, v := range ax.Values {
		d := s.Dtypes[v]
		e := d.Act
		if elem == "weight" {
			e = d.Weight
		}
		dts, out = append(dts, v), append(out, e)
	}
	return dts, out
}

// checkFeeds checks every family's fed_by against the families it names:
// the producer exists, is not itself fed (a chain is one producer deep),
// and its out buffer holds what the consumer's buffer holds, for every
// dtype of both. The sizes are checked when a chain is planned
// (runtime.SelectChain refuses a producer whose output is not exactly the
// consumer's buffer).
func checkFeeds(s *Spec) error {
	for _, f := range s.Families {
		for _, fd := range f.FedBy {
			p := s.Family(fd.Family)
			if p == nil {
				var names []string
				for _, x := range s.Families {
					names = append(names, x.Name)
				}
				return &Error{fd.Pos, fmt.Sprintf("fed_by %s: unknown family %q; allowed: %s", fd.Buffer, fd.Family, strings.Join(names, ", "))}
			}
			if len(p.FedBy) > 0 {
				return &Error{fd.Pos, fmt.Sprintf("fed_by %s: family %s is itself fed by %s: a chain is one producer deep", fd.Buffer, p.Name, p.FedBy[0].Family)}
			}
			if p.Launch == nil {
				return &Error{fd.Pos, fmt.Sprintf("fed_by %s: family %s has no launch contract", fd.Buffer, p.Name)}
			}
			var out *Buffer
			for _, b := range p.Launch.Buffers {
				if b.Dir == "out" {
					out = b
				}
			}
			var in *Buffer
			for _, b := range f.Launch.Buffers {
				if b.Name == fd.Buffer {
					in = b
				}
			}
			if out == nil || in == nil {
				continue // the contracts' own checks report it
			}
			pds, pes := elemsOf(s, p, out.Elem)
			cds, ces := elemsOf(s, f, in.Elem)
			for i, ce := range ces {
				for j, pe := range pes {
					if ce == pe {
						continue
					}
					what := func(fam, name, elem, dt, resolved string) string {
						if dt == "" {
							return fmt.Sprintf("%s's %s holds %s", fam, name, elem)
						}
						return fmt.Sprintf("%s's %s holds %s (%s of dtype %s)", fam, name, resolved, elem, dt)
					}
					return &Error{fd.Pos, fmt.Sprintf("fed_by %s: %s, but %s: the producer's output must be what the buffer holds",
						fd.Buffer, what(f.Name, in.Name, in.Elem, cds[i], ce), what(p.Name, out.Name, out.Elem, pds[j], pe))}
				}
			}
		}
	}
	return nil
}

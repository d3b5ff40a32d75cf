package emit

import (
	"github.com/dave/jennifer/jen"

	"github.com/kgen-dev/kgen/gen/spec"
)

// feedValues is a family's fed_by as a []table.Feed literal.
func feedValues(fs []*spec.Feed) jen.Code {
	var items []jen.Code
	for _, f := range fs {
		items = append(items, jen.Values(jen.Dict{jen.Id("Buffer"): jen.Lit(f.Buffer), jen.Id("Family"): jen.Lit(f.Family),
			jen.Id("M"): src(f.M), jen.Id("N"): src(f.N), jen.Id("K"): src(f.K)}))
	}
	return jen.Index().Qual(tablePkg, "Feed").Values(items...)
}

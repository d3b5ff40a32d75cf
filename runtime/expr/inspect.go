package expr

import (
	"go/ast"
	"go/token"
	"strconv"
)

// Ints lists the expression's integer literals, in order: the generator
// draws op values around them when it checks selection rules.
func (e *Expr) Ints() []int64 {
	var out []int64
	ast.Inspect(e.root, func(n ast.Node) bool {
		if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.INT {
			i, _ := strconv.ParseInt(lit.Value, 0, 64)
			out = append(out, i)
		}
		return true
	})
	return out
}

func unparen(n ast.Expr) ast.Expr {
	for {
		p, ok := n.(*ast.ParenExpr)
		if !ok {
			return n
		}
		n = p.X
	}
}

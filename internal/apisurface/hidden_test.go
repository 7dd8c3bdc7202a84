package apisurface

import (
	"go/ast"
	"go/token"
	"strings"
)

// hiddenValues lists f's unexported constants whose type is an exported
// type of pkg/: the package's own (an exported identifier) or another
// pkg/ package's. An enum is a type with its values; a value a program
// can meet in a result but not name makes it compare against a string
// literal, which no compiler checks.
func hiddenValues(f *ast.File) []string {
	pkgs := pkgImports(f)
	var out []string
	for _, decl := range f.Decls {
		d, ok := decl.(*ast.GenDecl)
		if !ok || d.Tok != token.CONST {
			continue
		}
		var typ ast.Expr // a const group repeats the last type given
		for _, spec := range d.Specs {
			vs := spec.(*ast.ValueSpec)
			if vs.Type != nil || len(vs.Values) > 0 {
				typ = vs.Type
			}
			name, ok := pkgTypeName(typ, pkgs)
			if !ok {
				continue
			}
			for _, n := range vs.Names {
				if !n.IsExported() && n.Name != "_" {
					out = append(out, n.Name+" "+name)
				}
			}
		}
	}
	return out
}

// pkgTypeName is typ's name when it is an exported type of pkg/.
func pkgTypeName(typ ast.Expr, pkgs map[string]bool) (string, bool) {
	switch t := typ.(type) {
	case *ast.Ident:
		return t.Name, t.IsExported()
	case *ast.SelectorExpr:
		if x, ok := t.X.(*ast.Ident); ok && pkgs[x.Name] && t.Sel.IsExported() {
			return x.Name + "." + t.Sel.Name, true
		}
	}
	return "", false
}

// pkgImports are the names a file imports this module's pkg/ packages
// under.
func pkgImports(f *ast.File) map[string]bool {
	return importNames(f, func(path string) bool { return strings.HasPrefix(path, module+"/pkg/") })
}

// module is this module's path (go.mod).
const module = "github.com/kubectl-graceful/kubectl-graceful"

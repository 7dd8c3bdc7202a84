// Package apisurface measures what pkg/ offers other programs, from the
// source alone: how many exported identifiers it has, and which exported
// fields and signatures use a type a program outside the module cannot
// name (an unexported one, or one from internal/, which Go refuses to
// import from outside the module).
package apisurface

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// Surface is what Measure found under one directory.
type Surface struct {
	// Count is the number of exported identifiers: top-level functions,
	// types, constants and variables, and methods of any type (an
	// unexported type's exported methods included, since its values can
	// reach a program through an exported field or an interface).
	Count int
	// PerPackage is Count by package directory, relative to the root.
	PerPackage map[string]int
	// Unnameable are the exported fields and signatures that use a type a
	// program outside the module cannot name, one line each
	// ("drain/preflight: Report.Evict: ownerGroup").
	Unnameable []string
	// HiddenValues are the unexported constants of an exported type of
	// pkg/, one line each ("timeline: t0WatchStart T0Source"): a value a
	// program reads in the JSON or a result but cannot name.
	HiddenValues []string
}

// Measure reads every non-test Go file under root (testdata skipped).
func Measure(root string) (*Surface, error) {
	s := &Surface{PerPackage: map[string]int{}}
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == "testdata" {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		dir, err := filepath.Rel(root, filepath.Dir(path))
		if err != nil {
			return err
		}
		n, bad := measureFile(f)
		s.Count += n
		s.PerPackage[filepath.ToSlash(dir)] += n
		for _, b := range bad {
			s.Unnameable = append(s.Unnameable, filepath.ToSlash(dir)+": "+b)
		}
		for _, h := range hiddenValues(f) {
			s.HiddenValues = append(s.HiddenValues, filepath.ToSlash(dir)+": "+h)
		}
		return nil
	})
	sort.Strings(s.Unnameable)
	sort.Strings(s.HiddenValues)
	return s, err
}

// measureFile counts a file's exported identifiers and lists its exported
// fields and signatures that use an unnameable type.
func measureFile(f *ast.File) (int, []string) {
	c := &checker{internal: internalImports(f)}
	n := 0
	for _, decl := range f.Decls {
		switch d := decl.(type) {
		case *ast.FuncDecl:
			if !d.Name.IsExported() {
				continue
			}
			n++
			if d.Recv == nil {
				c.expr(d.Name.Name, d.Type, typeParams(d.Type.TypeParams))
			} else if recv := receiver(d); ast.IsExported(recv) {
				c.expr(recv+"."+d.Name.Name, d.Type, typeParams(d.Type.TypeParams))
			}
		case *ast.GenDecl:
			for _, spec := range d.Specs {
				n += c.spec(spec)
			}
		}
	}
	return n, c.bad
}

// spec counts the exported names of one type, const or var spec and checks
// the types they show.
func (c *checker) spec(spec ast.Spec) int {
	switch sp := spec.(type) {
	case *ast.TypeSpec:
		if !sp.Name.IsExported() {
			return 0
		}
		c.expr(sp.Name.Name, sp.Type, typeParams(sp.TypeParams))
		return 1
	case *ast.ValueSpec:
		n := 0
		for _, name := range sp.Names {
			if name.IsExported() {
				n++
				if sp.Type != nil {
					c.expr(name.Name, sp.Type, nil)
				}
			}
		}
		return n
	}
	return 0
}

// checker walks the type expressions an exported declaration shows.
type checker struct {
	internal map[string]bool // import names of internal/ packages
	bad      []string
}

// expr reports each unnameable type in e, which belongs to the
// declaration named where; struct fields and interface methods are
// followed only when exported (or embedded), as a program sees them.
func (c *checker) expr(where string, e ast.Expr, params map[string]bool) {
	ast.Inspect(e, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.StructType:
			c.fields(where, x.Fields, params)
			return false
		case *ast.InterfaceType:
			c.fields(where, x.Methods, params)
			return false
		case *ast.FuncType:
			for _, fl := range []*ast.FieldList{x.TypeParams, x.Params, x.Results} {
				if fl != nil {
					for _, f := range fl.List {
						c.expr(where, f.Type, params)
					}
				}
			}
			return false
		case *ast.SelectorExpr:
			if pkg, ok := x.X.(*ast.Ident); ok && c.internal[pkg.Name] {
				c.bad = append(c.bad, where+": "+pkg.Name+"."+x.Sel.Name)
			}
			return false
		case *ast.Ident:
			if !x.IsExported() && !predeclared[x.Name] && !params[x.Name] {
				c.bad = append(c.bad, where+": "+x.Name)
			}
		}
		return true
	})
}

// fields checks the exported and embedded fields (or interface methods).
func (c *checker) fields(where string, fl *ast.FieldList, params map[string]bool) {
	for _, f := range fl.List {
		if len(f.Names) == 0 {
			c.expr(where, f.Type, params)
			continue
		}
		for _, name := range f.Names {
			if name.IsExported() {
				c.expr(where+"."+name.Name, f.Type, params)
			}
		}
	}
}

// receiver is the name of a method's receiver type.
func receiver(d *ast.FuncDecl) string {
	t := d.Recv.List[0].Type
	if s, ok := t.(*ast.StarExpr); ok {
		t = s.X
	}
	switch x := t.(type) {
	case *ast.IndexExpr:
		t = x.X
	case *ast.IndexListExpr:
		t = x.X
	}
	if id, ok := t.(*ast.Ident); ok {
		return id.Name
	}
	return fmt.Sprint(t)
}

// typeParams are the names of a declaration's type parameters.
func typeParams(fl *ast.FieldList) map[string]bool {
	out := map[string]bool{}
	if fl != nil {
		for _, f := range fl.List {
			for _, n := range f.Names {
				out[n.Name] = true
			}
		}
	}
	return out
}

// internalImports are the names a file imports internal/ packages under.
func internalImports(f *ast.File) map[string]bool {
	return importNames(f, func(path string) bool { return strings.Contains(path+"/", "/internal/") })
}

// importNames are the names a file imports the packages whose path is
// chosen under.
func importNames(f *ast.File, chosen func(path string) bool) map[string]bool {
	out := map[string]bool{}
	for _, imp := range f.Imports {
		path, err := strconv.Unquote(imp.Path.Value)
		if err != nil || !chosen(path) {
			continue
		}
		name := path[strings.LastIndex(path, "/")+1:]
		if imp.Name != nil {
			name = imp.Name.Name
		}
		out[name] = true
	}
	return out
}

// predeclared are Go's predeclared types, nameable everywhere.
var predeclared = map[string]bool{
	"any": true, "bool": true, "byte": true, "comparable": true, "complex64": true, "complex128": true,
	"error": true, "float32": true, "float64": true, "int": true, "int8": true, "int16": true,
	"int32": true, "int64": true, "rune": true, "string": true, "uint": true, "uint8": true,
	"uint16": true, "uint32": true, "uint64": true, "uintptr": true,
}

// Command apicount counts the library's exported identifiers: the
// package-level names, the exported methods of exported types and the
// methods of exported interfaces, in the non-test files of the public
// packages (internal/, benchmarks/, examples/ and conformance/ excluded).
// With -fields it counts the exported fields of exported structs too; with
// -v it lists every name.
//
//	go run ./internal/apicount          # from the repository root
package main

import (
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

func main() {
	fields := flag.Bool("fields", false, "count exported struct fields too")
	verbose := flag.Bool("v", false, "list every name")
	flag.Parse()
	root := "."
	if flag.NArg() > 0 {
		root = flag.Arg(0)
	}
	fset := token.NewFileSet()
	var names []string
	err := filepath.Walk(root, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if info.IsDir() {
			b := filepath.Base(p)
			if rel != "." && (b == "internal" || b == "examples" || b == "conformance" || b == "benchmarks" || b == "testdata" || strings.HasPrefix(b, ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, 0)
		if err != nil {
			panic(err)
		}
		pkg := filepath.Dir(rel)
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if !d.Name.IsExported() {
					continue
				}
				if d.Recv != nil {
					t := d.Recv.List[0].Type
					if s, ok := t.(*ast.StarExpr); ok {
						t = s.X
					}
					if ix, ok := t.(*ast.IndexExpr); ok {
						t = ix.X
					}
					if ix, ok := t.(*ast.IndexListExpr); ok {
						t = ix.X
					}
					id := t.(*ast.Ident)
					if !id.IsExported() {
						continue
					}
					names = append(names, pkg+"."+id.Name+"."+d.Name.Name)
				} else {
					names = append(names, pkg+"."+d.Name.Name)
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						if s.Name.IsExported() {
							names = append(names, pkg+"."+s.Name.Name)
							if st, ok := s.Type.(*ast.StructType); ok {
								for _, fl := range st.Fields.List {
									for _, n := range fl.Names {
										if n.IsExported() && *fields {
											names = append(names, pkg+"."+s.Name.Name+"."+n.Name)
										}
									}
								}
							}
							if it, ok := s.Type.(*ast.InterfaceType); ok {
								for _, m := range it.Methods.List {
									for _, n := range m.Names {
										if n.IsExported() {
											names = append(names, pkg+"."+s.Name.Name+"."+n.Name)
										}
									}
								}
							}
						}
					case *ast.ValueSpec:
						for _, n := range s.Names {
							if n.IsExported() {
								names = append(names, pkg+"."+n.Name)
							}
						}
					}
				}
			}
		}
		return nil
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	sort.Strings(names)
	if *verbose {
		for _, n := range names {
			fmt.Println(n)
		}
	}
	per := map[string]int{}
	for _, n := range names {
		per[strings.SplitN(n, ".", 2)[0]]++
	}
	pkgs := make([]string, 0, len(per))
	for p := range per {
		pkgs = append(pkgs, p)
	}
	sort.Strings(pkgs)
	for _, p := range pkgs {
		fmt.Printf("%-10s %d\n", p, per[p])
	}
	fmt.Printf("%-10s %d\n", "total", len(names))
}

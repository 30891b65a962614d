package benchmarks

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestBt42SeedWorkersAndAlignedTimeBenchmarkSeedsSteadyPhase: every
// benchmark that says it is "BenchmarkSeed's steady phase" times as many
// rows as BenchmarkSeed's steady phase does for the same configuration.
//
// What the docs say: BenchmarkSeedWorkers "is
// BenchmarkSeed's steady phase on a series with one, two and four
// workers"; BenchmarkSeedAligned "is
// BenchmarkSeed's steady phase with both rollings aligned". BenchmarkSeed
// streams 130 s, not 70, at
// the configurations of 10,000 rows a second: 63–70 s is 70,000 rows,
// about 3 ms of pushes, under one 4 ms step of the thread clock behind
// cpu-ns/row, "so each op read 0 or 4 ms"; from 63 to 130 s it times
// 670,000 rows (commit 7643c23).
//
// What happened (fixed: both use steadySecs now): BenchmarkSeedWorkers'
// P=1000/N=10 and BenchmarkSeedAligned's P=100/N=100 and P=1000/N=10
// streamed 70 s and timed 70,000 rows an op, so
// their cpu-ns/row is quantised to about 57 ns an op (BENCH.md quotes
// BenchmarkSeedAligned's P=1000/N=10 at "171, 174 → 126, 128" cpu-ns/row,
// steps of 4 ms over 5 ops of 70,000 rows). BenchmarkSeedTwoSeries uses
// steadySecs and is right.
//
// The configurations are literals in the benchmarks' bodies, so the test
// reads them from the source: it passes once each configuration's
// seconds are steadySecs', or the body calls steadySecs.
func TestBt42SeedWorkersAndAlignedTimeBenchmarkSeedsSteadyPhase(t *testing.T) {
	fset := token.NewFileSet()
	files, err := filepath.Glob("*_test.go")
	require.NoError(t, err)
	funcs := map[string]*ast.FuncDecl{}
	for _, name := range files {
		f, err := parser.ParseFile(fset, name, nil, 0)
		require.NoError(t, err)
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv == nil {
				funcs[fd.Name.Name] = fd
			}
		}
	}
	for _, name := range []string{"BenchmarkSeedWorkers", "BenchmarkSeedAligned", "BenchmarkSeedTwoSeries"} {
		t.Run(name, func(t *testing.T) {
			fd := funcs[name]
			require.NotNil(t, fd, "no func %s", name)
			callsSteady := false
			var configs [][]int
			ast.Inspect(fd.Body, func(n ast.Node) bool {
				switch n := n.(type) {
				case *ast.CallExpr:
					if id, ok := n.Fun.(*ast.Ident); ok && id.Name == "steadySecs" {
						callsSteady = true
					}
				case *ast.CompositeLit:
					if n.Type != nil { // a config is an element of a []struct{...} literal
						return true
					}
					var xs []int
					for _, e := range n.Elts {
						lit, ok := e.(*ast.BasicLit)
						if !ok || lit.Kind != token.INT {
							return true
						}
						x, err := strconv.Atoi(lit.Value)
						require.NoError(t, err)
						xs = append(xs, x)
					}
					if len(xs) == 2 || len(xs) == 3 {
						configs = append(configs, xs)
					}
				}
				return true
			})
			require.NotEmpty(t, configs, "configurations of %s", name)
			if callsSteady {
				return
			}
			for _, c := range configs {
				p, n, secs := c[0], c[1], 70
				if len(c) == 3 {
					secs = c[2]
				}
				want := (steadySecs(p, n, secs) - 63) * n * p
				got := (secs - 63) * n * p
				assert.Equal(t, want, got, "%s P=%d/N=%d: rows timed an op, BenchmarkSeed's steady phase times %d", name, p, n, want)
			}
		})
	}
}

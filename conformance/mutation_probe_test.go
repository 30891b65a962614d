package conformance_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"math"
	"math/big"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pond-go/pond/internal/aligned"
	"github.com/pond-go/pond/internal/engine"
	"github.com/pond-go/pond/internal/workers"
)

// Mutation probes of the conformance runner: a runner that passes a case
// it should fail is worse than none. Each probe loads real vectors, changes
// one thing in the in-memory expectation of one case (a value beyond its
// tolerance, a null, a row, a column, an error class, length, evicted, ...),
// writes the mutated case to a temporary folder and runs runVector on it
// exactly as TestConformance does, then asserts that the runner FAILED.
//
// runVector takes a *testing.T and stops with t.FailNow, so a failure
// cannot be caught in this process without changing it: the mutated cases
// run in a child process of this test binary (TestMu42Child), one subtest
// each, which writes every outcome to a file. The runner is not changed.
// Each mutated case has an unmutated control run beside it, which must
// pass: otherwise a failure would prove nothing.
//
// Choices are seeded (math/rand/v2, fixed seeds) and the number of cases
// per mutation is fixed. Mutations the runner does not catch but should
// are pinned as failing tests in mutation_bugs_test.go.

const (
	// mu42MaxRows keeps the probes fast under -race: cases pushing more
	// rows than this (the big random ones) are left to TestConformance.
	mu42MaxRows = 400
	// mu42PerOp is the number of cases each mutation is applied to.
	mu42PerOp = 6
	// mu42Seed seeds every choice.
	mu42Seed = 42
)

// mu42Case is one vector as read from the folder: its top-level members
// kept raw (so the pipeline's member order, which the runner relies on,
// survives), and what the mutations need to know about it.
type mu42Case struct {
	name   string
	top    map[string]json.RawMessage
	tol    float64
	rows   int
	config bool
	differ bool
}

// mu42Doc is a case being mutated: the raw members and the expectation
// decoded with json.Number, so that what no mutation touches is written
// back verbatim.
type mu42Doc struct {
	top    map[string]json.RawMessage
	expect []any
}

func (c *mu42Case) doc(t testing.TB) *mu42Doc {
	top := make(map[string]json.RawMessage, len(c.top))
	for k, v := range c.top {
		top[k] = v
	}
	dec := json.NewDecoder(bytes.NewReader(c.top["expect"]))
	dec.UseNumber()
	var exp []any
	require.NoError(t, dec.Decode(&exp), "%s: expect", c.name)
	return &mu42Doc{top: top, expect: exp}
}

func (d *mu42Doc) bytes(t testing.TB) []byte {
	raw, err := json.Marshal(d.expect)
	require.NoError(t, err)
	d.top["expect"] = raw
	out, err := json.MarshalIndent(d.top, "", " ")
	require.NoError(t, err)
	return out
}

// mu42LoadCases reads the vectors of the folder TestConformance reads
// whose names are given, or all of them.
func mu42LoadCases(t testing.TB, names ...string) []*mu42Case {
	dir := vectorDir()
	var files []string
	require.NoError(t, filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".json") {
			files = append(files, p)
		}
		return err
	}))
	slices.Sort(files)
	require.NotEmpty(t, files, "no vectors under %s", dir)
	var cases []*mu42Case
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".json")
		if len(names) > 0 && !slices.Contains(names, name) {
			continue
		}
		raw, err := os.ReadFile(f)
		require.NoError(t, err)
		c := &mu42Case{name: name, tol: 1e-9}
		require.NoError(t, json.Unmarshal(raw, &c.top), "%s", f)
		var v vector
		require.NoError(t, json.Unmarshal(raw, &v), "%s", f)
		if v.Tol != nil {
			c.tol = *v.Tol
		}
		for _, p := range v.Pushes {
			c.rows += len(p)
		}
		c.config = len(v.Expect) > 0 && v.Expect[0].Error != nil && *v.Expect[0].Error == "config"
		c.differ = v.Differs != ""
		cases = append(cases, c)
	}
	return cases
}

// The expectation tree: expect is a list of objects; "events" a list of
// [t, record]; a record an object of column → value (nil, json.Number,
// string, bool or []any).

func mu42Entry(exp []any, i int) map[string]any { return exp[i].(map[string]any) }

func mu42Events(exp []any, i int) []any {
	ev, _ := mu42Entry(exp, i)["events"].([]any)
	return ev
}

func mu42SetEvents(exp []any, i int, ev []any) { mu42Entry(exp, i)["events"] = ev }

func mu42Error(exp []any, i int) string {
	s, _ := mu42Entry(exp, i)["error"].(string)
	return s
}

func mu42Record(ev any) map[string]any { return ev.([]any)[1].(map[string]any) }

// mu42Copy deep-copies an event (or any part of the tree).
func mu42Copy(x any) any {
	switch v := x.(type) {
	case []any:
		out := make([]any, len(v))
		for i := range v {
			out[i] = mu42Copy(v[i])
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			out[k] = mu42Copy(e)
		}
		return out
	}
	return x
}

// mu42Cell is one value of one emitted record.
type mu42Cell struct {
	push, event int
	rec         map[string]any
	col         string
}

func (c mu42Cell) val() any { return c.rec[c.col] }

func (c mu42Cell) String() string {
	return fmt.Sprintf("push %d event %d column %q", c.push, c.event, c.col)
}

// mu42Cells lists the cells for which keep holds, in document order (the
// columns of a record sorted).
func mu42Cells(exp []any, keep func(any) bool) []mu42Cell {
	var out []mu42Cell
	for i := range exp {
		for k, ev := range mu42Events(exp, i) {
			rec := mu42Record(ev)
			cols := make([]string, 0, len(rec))
			for c := range rec {
				cols = append(cols, c)
			}
			slices.Sort(cols)
			for _, c := range cols {
				if keep(rec[c]) {
					out = append(out, mu42Cell{push: i, event: k, rec: rec, col: c})
				}
			}
		}
	}
	return out
}

func mu42IsNum(x any) bool   { _, ok := x.(json.Number); return ok }
func mu42IsNull(x any) bool  { return x == nil }
func mu42IsStr(x any) bool   { _, ok := x.(string); return ok }
func mu42IsBool(x any) bool  { _, ok := x.(bool); return ok }
func mu42IsArr(x any) bool   { a, ok := x.([]any); return ok && len(a) > 0 }
func mu42IsAny(any) bool     { return true }
func mu42IsZero(x any) bool  { n, ok := x.(json.Number); return ok && mu42Float(n) == 0 }
func mu42IsEmpty(x any) bool { s, ok := x.(string); return ok && s == "" }

func mu42Float(n json.Number) float64 {
	f, err := n.Float64()
	if err != nil {
		panic(err)
	}
	return f
}

// mu42Beyond moves a number by three times the case's tolerance (relative,
// with the floor of 1 FORMAT.md gives): a value a conforming library
// computed within tolerance of the expectation is then outside it.
func mu42Beyond(r *rand.Rand, n json.Number, tol float64) float64 {
	w := mu42Float(n)
	d := 3 * tol * math.Max(1, math.Abs(w))
	if r.IntN(2) == 0 {
		d = -d
	}
	return w + d
}

func mu42Pick[T any](r *rand.Rand, xs []T) (T, bool) {
	var zero T
	if len(xs) == 0 {
		return zero, false
	}
	return xs[r.IntN(len(xs))], true
}

// mu42CellOp mutates one cell for which keep holds.
func mu42CellOp(keep func(any) bool, change func(r *rand.Rand, c *mu42Case, cell mu42Cell) string) func(*rand.Rand, *mu42Case, *mu42Doc) (string, bool) {
	return func(r *rand.Rand, c *mu42Case, d *mu42Doc) (string, bool) {
		cell, ok := mu42Pick(r, mu42Cells(d.expect, keep))
		if !ok {
			return "", false
		}
		return cell.String() + ": " + change(r, c, cell), true
	}
}

func mu42SetCell(cell mu42Cell, v any) string {
	was := cell.val()
	cell.rec[cell.col] = v
	return fmt.Sprintf("%s → %s", mu42JSON(was), mu42JSON(v))
}

func mu42JSON(x any) string {
	b, err := json.Marshal(x)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// mu42ArrayOp mutates one non-empty array cell.
func mu42ArrayOp(change func(r *rand.Rand, c *mu42Case, a []any) (any, bool)) func(*rand.Rand, *mu42Case, *mu42Doc) (string, bool) {
	return func(r *rand.Rand, c *mu42Case, d *mu42Doc) (string, bool) {
		cells := mu42Cells(d.expect, mu42IsArr)
		r.Shuffle(len(cells), func(i, j int) { cells[i], cells[j] = cells[j], cells[i] })
		for _, cell := range cells {
			a := mu42Copy(cell.val()).([]any)
			if v, ok := change(r, c, a); ok {
				return cell.String() + ": " + mu42SetCell(cell, v), true
			}
		}
		return "", false
	}
}

// mu42ChangeScalar returns a different scalar of the same kind: a number
// beyond tolerance, a string with a character more, the other boolean, 0
// for null.
func mu42ChangeScalar(r *rand.Rand, tol float64, x any) any {
	switch v := x.(type) {
	case json.Number:
		return mu42Beyond(r, v, tol)
	case string:
		return v + "~"
	case bool:
		return !v
	}
	return 0
}

// mu42TimeOp shifts the time of one emitted event by delta ms (a decimal).
func mu42TimeOp(delta string) func(*rand.Rand, *mu42Case, *mu42Doc) (string, bool) {
	return func(r *rand.Rand, c *mu42Case, d *mu42Doc) (string, bool) {
		cell, ok := mu42Pick(r, mu42EventSites(d.expect, 1))
		if !ok {
			return "", false
		}
		ev := mu42Events(d.expect, cell[0])[cell[1]].([]any)
		t, ok := new(big.Rat).SetString(string(ev[0].(json.Number)))
		if !ok {
			panic(ev[0])
		}
		dt, _ := new(big.Rat).SetString(delta)
		t.Add(t, dt)
		s := t.RatString()
		if !t.IsInt() {
			s = strings.TrimRight(t.FloatString(9), "0")
		}
		was := ev[0]
		ev[0] = json.Number(s)
		return fmt.Sprintf("push %d event %d: t %s → %s", cell[0], cell[1], was, s), true
	}
}

// mu42EventSites lists (push, event) of the events of the pushes having at
// least min events.
func mu42EventSites(exp []any, min int) [][2]int {
	var out [][2]int
	for i := range exp {
		ev := mu42Events(exp, i)
		if len(ev) < min {
			continue
		}
		for k := range ev {
			out = append(out, [2]int{i, k})
		}
	}
	return out
}

// mu42Pushes lists the pushes for which keep holds.
func mu42Pushes(exp []any, keep func(i int) bool) []int {
	var out []int
	for i := range exp {
		if keep(i) {
			out = append(out, i)
		}
	}
	return out
}

var mu42Classes = []string{"validation", "out-of-order", "late"}

// mu42FailingPush reports whether push i must fail with a data error.
func mu42FailingPush(exp []any) func(int) bool {
	return func(i int) bool { return slices.Contains(mu42Classes, mu42Error(exp, i)) }
}

// mu42CountOp changes the "length" or "evicted" of one entry for which
// keep holds.
func mu42CountOp(field string, failing bool) func(*rand.Rand, *mu42Case, *mu42Doc) (string, bool) {
	return func(r *rand.Rand, c *mu42Case, d *mu42Doc) (string, bool) {
		if c.config {
			return "", false
		}
		fail := mu42FailingPush(d.expect)
		i, ok := mu42Pick(r, mu42Pushes(d.expect, func(i int) bool {
			_, has := mu42Entry(d.expect, i)[field]
			return has && fail(i) == failing
		}))
		if !ok {
			return "", false
		}
		was := mu42Entry(d.expect, i)[field].(json.Number)
		n, err := was.Int64()
		if err != nil {
			panic(err)
		}
		to := n + 1
		if n > 0 && r.IntN(2) == 0 {
			to = n - 1
		}
		mu42Entry(d.expect, i)[field] = to
		return fmt.Sprintf("push %d: %s %s → %d", i, field, was, to), true
	}
}

// mu42StepOp changes the op of one step of the pipeline (not the
// expectation: used for the runner's handling of steps it cannot build).
func mu42StepOp(change func(step map[string]json.RawMessage)) func(*rand.Rand, *mu42Case, *mu42Doc) (string, bool) {
	return func(r *rand.Rand, c *mu42Case, d *mu42Doc) (string, bool) {
		var pipeline []map[string]json.RawMessage
		if json.Unmarshal(d.top["pipeline"], &pipeline) != nil || len(pipeline) == 0 {
			return "", false
		}
		k := r.IntN(len(pipeline))
		was := string(pipeline[k]["op"])
		change(pipeline[k])
		raw, err := json.Marshal(pipeline)
		if err != nil {
			panic(err)
		}
		d.top["pipeline"] = raw
		return fmt.Sprintf("step %d: op %s → %s", k, was, pipeline[k]["op"]), true
	}
}

type mu42Op struct {
	name string
	// only, when set, restricts the op to the cases it accepts.
	only  func(c *mu42Case) bool
	apply func(r *rand.Rand, c *mu42Case, d *mu42Doc) (string, bool)
}

// mu42Ops are the mutations the runner catches; each must make it fail.
var mu42Ops = []mu42Op{
	// Values.
	{name: "number-beyond-tolerance", apply: mu42CellOp(mu42IsNum, func(r *rand.Rand, c *mu42Case, cell mu42Cell) string {
		return mu42SetCell(cell, mu42Beyond(r, cell.val().(json.Number), c.tol))
	})},
	{name: "number-beyond-tolerance-in-differs-case", only: func(c *mu42Case) bool { return c.differ }, apply: mu42CellOp(mu42IsNum, func(r *rand.Rand, c *mu42Case, cell mu42Cell) string {
		return mu42SetCell(cell, mu42Beyond(r, cell.val().(json.Number), c.tol))
	})},
	{name: "number-beyond-tolerance-in-tolerance-case", only: func(c *mu42Case) bool { _, ok := c.top["tolerance"]; return ok }, apply: mu42CellOp(mu42IsNum, func(r *rand.Rand, c *mu42Case, cell mu42Cell) string {
		return mu42SetCell(cell, mu42Beyond(r, cell.val().(json.Number), c.tol))
	})},
	{name: "number-negated", apply: mu42CellOp(func(x any) bool { return mu42IsNum(x) && math.Abs(mu42Float(x.(json.Number))) > 1e-6 }, func(r *rand.Rand, c *mu42Case, cell mu42Cell) string {
		return mu42SetCell(cell, -mu42Float(cell.val().(json.Number)))
	})},
	{name: "number-to-null", apply: mu42CellOp(mu42IsNum, func(r *rand.Rand, c *mu42Case, cell mu42Cell) string { return mu42SetCell(cell, nil) })},
	{name: "zero-to-null", apply: mu42CellOp(mu42IsZero, func(r *rand.Rand, c *mu42Case, cell mu42Cell) string { return mu42SetCell(cell, nil) })},
	{name: "null-to-zero", apply: mu42CellOp(mu42IsNull, func(r *rand.Rand, c *mu42Case, cell mu42Cell) string { return mu42SetCell(cell, 0) })},
	{name: "null-to-false", apply: mu42CellOp(mu42IsNull, func(r *rand.Rand, c *mu42Case, cell mu42Cell) string { return mu42SetCell(cell, false) })},
	{name: "null-to-empty-array", apply: mu42CellOp(mu42IsNull, func(r *rand.Rand, c *mu42Case, cell mu42Cell) string { return mu42SetCell(cell, []any{}) })},
	{name: "null-to-empty-string", apply: mu42CellOp(mu42IsNull, func(r *rand.Rand, c *mu42Case, cell mu42Cell) string { return mu42SetCell(cell, "") })},
	{name: "empty-string-to-null", apply: mu42CellOp(mu42IsEmpty, func(r *rand.Rand, c *mu42Case, cell mu42Cell) string { return mu42SetCell(cell, nil) })},
	{name: "number-to-string", apply: mu42CellOp(mu42IsNum, func(r *rand.Rand, c *mu42Case, cell mu42Cell) string {
		return mu42SetCell(cell, string(cell.val().(json.Number)))
	})},
	{name: "string-changed", apply: mu42CellOp(mu42IsStr, func(r *rand.Rand, c *mu42Case, cell mu42Cell) string {
		return mu42SetCell(cell, cell.val().(string)+"~")
	})},
	{name: "string-case-changed", apply: mu42CellOp(func(x any) bool { s, ok := x.(string); return ok && strings.ToUpper(s) != s }, func(r *rand.Rand, c *mu42Case, cell mu42Cell) string {
		return mu42SetCell(cell, strings.ToUpper(cell.val().(string)))
	})},
	{name: "string-to-null", apply: mu42CellOp(mu42IsStr, func(r *rand.Rand, c *mu42Case, cell mu42Cell) string { return mu42SetCell(cell, nil) })},
	{name: "bool-flipped", apply: mu42CellOp(mu42IsBool, func(r *rand.Rand, c *mu42Case, cell mu42Cell) string { return mu42SetCell(cell, !cell.val().(bool)) })},
	{name: "bool-to-null", apply: mu42CellOp(mu42IsBool, func(r *rand.Rand, c *mu42Case, cell mu42Cell) string { return mu42SetCell(cell, nil) })},
	{name: "bool-to-number", apply: mu42CellOp(mu42IsBool, func(r *rand.Rand, c *mu42Case, cell mu42Cell) string {
		n := 0
		if cell.val().(bool) {
			n = 1
		}
		return mu42SetCell(cell, n)
	})},
	{name: "array-to-null", apply: mu42CellOp(mu42IsArr, func(r *rand.Rand, c *mu42Case, cell mu42Cell) string { return mu42SetCell(cell, nil) })},
	{name: "array-to-its-first-element", apply: mu42CellOp(mu42IsArr, func(r *rand.Rand, c *mu42Case, cell mu42Cell) string {
		return mu42SetCell(cell, cell.val().([]any)[0])
	})},
	{name: "array-element-changed", apply: mu42ArrayOp(func(r *rand.Rand, c *mu42Case, a []any) (any, bool) {
		k := r.IntN(len(a))
		a[k] = mu42ChangeScalar(r, c.tol, a[k])
		return a, true
	})},
	{name: "array-element-to-null", apply: mu42ArrayOp(func(r *rand.Rand, c *mu42Case, a []any) (any, bool) {
		k := r.IntN(len(a))
		if a[k] == nil {
			return nil, false
		}
		a[k] = nil
		return a, true
	})},
	{name: "array-element-appended", apply: mu42ArrayOp(func(r *rand.Rand, c *mu42Case, a []any) (any, bool) {
		return append(a, a[len(a)-1]), true
	})},
	{name: "array-null-appended", apply: mu42ArrayOp(func(r *rand.Rand, c *mu42Case, a []any) (any, bool) {
		return append(a, nil), true
	})},
	{name: "array-last-element-dropped", apply: mu42ArrayOp(func(r *rand.Rand, c *mu42Case, a []any) (any, bool) {
		return a[:len(a)-1], true
	})},
	{name: "array-reversed", apply: mu42ArrayOp(func(r *rand.Rand, c *mu42Case, a []any) (any, bool) {
		b := slices.Clone(a)
		slices.Reverse(b)
		return b, mu42JSON(a) != mu42JSON(b)
	})},
	// Columns of a record.
	{name: "column-renamed", apply: mu42CellOp(mu42IsAny, func(r *rand.Rand, c *mu42Case, cell mu42Cell) string {
		cell.rec[cell.col+"~"] = cell.val()
		delete(cell.rec, cell.col)
		return "renamed to " + strconv.Quote(cell.col+"~")
	})},
	{name: "column-dropped", apply: mu42CellOp(mu42IsAny, func(r *rand.Rand, c *mu42Case, cell mu42Cell) string {
		delete(cell.rec, cell.col)
		return "dropped"
	})},
	{name: "null-column-dropped", apply: mu42CellOp(mu42IsNull, func(r *rand.Rand, c *mu42Case, cell mu42Cell) string {
		delete(cell.rec, cell.col)
		return "dropped"
	})},
	{name: "null-column-added", apply: mu42CellOp(mu42IsAny, func(r *rand.Rand, c *mu42Case, cell mu42Cell) string {
		cell.rec["mu42"] = nil
		return `added "mu42": null`
	})},
	// Times and rows.
	{name: "time-plus-1ms", apply: mu42TimeOp("1")},
	{name: "time-minus-1ms", apply: mu42TimeOp("-1")},
	{name: "time-plus-1ns", apply: mu42TimeOp("1/1000000")},
	{name: "row-dropped", apply: func(r *rand.Rand, c *mu42Case, d *mu42Doc) (string, bool) {
		s, ok := mu42Pick(r, mu42EventSites(d.expect, 1))
		if !ok {
			return "", false
		}
		mu42SetEvents(d.expect, s[0], slices.Delete(mu42Events(d.expect, s[0]), s[1], s[1]+1))
		return fmt.Sprintf("push %d: event %d dropped", s[0], s[1]), true
	}},
	{name: "row-duplicated", apply: func(r *rand.Rand, c *mu42Case, d *mu42Doc) (string, bool) {
		s, ok := mu42Pick(r, mu42EventSites(d.expect, 1))
		if !ok {
			return "", false
		}
		ev := mu42Events(d.expect, s[0])
		mu42SetEvents(d.expect, s[0], slices.Insert(ev, s[1], mu42Copy(ev[s[1]])))
		return fmt.Sprintf("push %d: event %d twice", s[0], s[1]), true
	}},
	{name: "rows-swapped", apply: func(r *rand.Rand, c *mu42Case, d *mu42Doc) (string, bool) {
		var sites [][2]int
		for _, s := range mu42EventSites(d.expect, 2) {
			ev := mu42Events(d.expect, s[0])
			if s[1]+1 < len(ev) && mu42JSON(ev[s[1]]) != mu42JSON(ev[s[1]+1]) {
				sites = append(sites, s)
			}
		}
		s, ok := mu42Pick(r, sites)
		if !ok {
			return "", false
		}
		ev := mu42Events(d.expect, s[0])
		ev[s[1]], ev[s[1]+1] = ev[s[1]+1], ev[s[1]]
		return fmt.Sprintf("push %d: events %d and %d swapped", s[0], s[1], s[1]+1), true
	}},
	{name: "same-time-rows-swapped", apply: func(r *rand.Rand, c *mu42Case, d *mu42Doc) (string, bool) {
		// Partitioned rows at one time: the order of partitions counts.
		var sites [][2]int
		for _, s := range mu42EventSites(d.expect, 2) {
			ev := mu42Events(d.expect, s[0])
			if s[1]+1 < len(ev) && mu42JSON(ev[s[1]]) != mu42JSON(ev[s[1]+1]) &&
				mu42JSON(ev[s[1]].([]any)[0]) == mu42JSON(ev[s[1]+1].([]any)[0]) {
				sites = append(sites, s)
			}
		}
		s, ok := mu42Pick(r, sites)
		if !ok {
			return "", false
		}
		ev := mu42Events(d.expect, s[0])
		ev[s[1]], ev[s[1]+1] = ev[s[1]+1], ev[s[1]]
		return fmt.Sprintf("push %d: events %d and %d swapped", s[0], s[1], s[1]+1), true
	}},
	{name: "row-moved-to-next-push", apply: func(r *rand.Rand, c *mu42Case, d *mu42Doc) (string, bool) {
		fail := mu42FailingPush(d.expect)
		i, ok := mu42Pick(r, mu42Pushes(d.expect, func(i int) bool {
			return i+1 < len(d.expect) && len(mu42Events(d.expect, i)) > 0 && !fail(i+1)
		}))
		if !ok {
			return "", false
		}
		ev := mu42Events(d.expect, i)
		last := ev[len(ev)-1]
		mu42SetEvents(d.expect, i, ev[:len(ev)-1])
		mu42SetEvents(d.expect, i+1, append([]any{last}, mu42Events(d.expect, i+1)...))
		return fmt.Sprintf("push %d: last event moved to push %d", i, i+1), true
	}},
	{name: "row-added-to-quiet-push", apply: func(r *rand.Rand, c *mu42Case, d *mu42Doc) (string, bool) {
		sites := mu42EventSites(d.expect, 1)
		fail := mu42FailingPush(d.expect)
		i, ok := mu42Pick(r, mu42Pushes(d.expect, func(i int) bool { return len(mu42Events(d.expect, i)) == 0 && !fail(i) }))
		if !ok || len(sites) == 0 || c.config {
			return "", false
		}
		s := sites[r.IntN(len(sites))]
		mu42SetEvents(d.expect, i, []any{mu42Copy(mu42Events(d.expect, s[0])[s[1]])})
		return fmt.Sprintf("push %d: event %d of push %d added", i, s[1], s[0]), true
	}},
	{name: "row-added-to-failing-push", apply: func(r *rand.Rand, c *mu42Case, d *mu42Doc) (string, bool) {
		sites := mu42EventSites(d.expect, 1)
		i, ok := mu42Pick(r, mu42Pushes(d.expect, mu42FailingPush(d.expect)))
		if !ok || len(sites) == 0 {
			return "", false
		}
		s := sites[r.IntN(len(sites))]
		mu42SetEvents(d.expect, i, []any{mu42Copy(mu42Events(d.expect, s[0])[s[1]])})
		return fmt.Sprintf("failing push %d: event %d of push %d added", i, s[1], s[0]), true
	}},
	// length and evicted.
	{name: "length-changed", apply: mu42CountOp("length", false)},
	{name: "evicted-changed", apply: mu42CountOp("evicted", false)},
	{name: "length-of-failing-push-changed", apply: mu42CountOp("length", true)},
	{name: "evicted-of-failing-push-changed", apply: mu42CountOp("evicted", true)},
	// Errors.
	{name: "failing-push-made-to-succeed", apply: func(r *rand.Rand, c *mu42Case, d *mu42Doc) (string, bool) {
		i, ok := mu42Pick(r, mu42Pushes(d.expect, mu42FailingPush(d.expect)))
		if !ok {
			return "", false
		}
		was := mu42Error(d.expect, i)
		mu42Entry(d.expect, i)["error"] = nil
		return fmt.Sprintf("push %d: error %q → null", i, was), true
	}},
	{name: "failing-push-error-dropped", apply: func(r *rand.Rand, c *mu42Case, d *mu42Doc) (string, bool) {
		i, ok := mu42Pick(r, mu42Pushes(d.expect, mu42FailingPush(d.expect)))
		if !ok {
			return "", false
		}
		delete(mu42Entry(d.expect, i), "error")
		return fmt.Sprintf("push %d: error member removed", i), true
	}},
	{name: "succeeding-push-made-to-fail", apply: func(r *rand.Rand, c *mu42Case, d *mu42Doc) (string, bool) {
		if c.config {
			return "", false
		}
		i, ok := mu42Pick(r, mu42Pushes(d.expect, func(i int) bool { return mu42Error(d.expect, i) == "" }))
		if !ok {
			return "", false
		}
		class := mu42Classes[r.IntN(len(mu42Classes))]
		mu42Entry(d.expect, i)["error"] = class
		mu42SetEvents(d.expect, i, []any{})
		return fmt.Sprintf("push %d: error null → %q, no events", i, class), true
	}},
	{name: "error-class-changed", apply: func(r *rand.Rand, c *mu42Case, d *mu42Doc) (string, bool) {
		i, ok := mu42Pick(r, mu42Pushes(d.expect, mu42FailingPush(d.expect)))
		if !ok {
			return "", false
		}
		was := mu42Error(d.expect, i)
		others := slices.DeleteFunc(slices.Clone(mu42Classes), func(s string) bool { return s == was })
		to := others[r.IntN(len(others))]
		mu42Entry(d.expect, i)["error"] = to
		return fmt.Sprintf("push %d: error %q → %q", i, was, to), true
	}},
	{name: "error-class-unknown", apply: func(r *rand.Rand, c *mu42Case, d *mu42Doc) (string, bool) {
		i, ok := mu42Pick(r, mu42Pushes(d.expect, mu42FailingPush(d.expect)))
		if !ok {
			return "", false
		}
		mu42Entry(d.expect, i)["error"] = "timeout"
		return fmt.Sprintf("push %d: error → \"timeout\"", i), true
	}},
	{name: "push-error-made-config", apply: func(r *rand.Rand, c *mu42Case, d *mu42Doc) (string, bool) {
		if c.config {
			return "", false
		}
		i, ok := mu42Pick(r, mu42Pushes(d.expect, func(i int) bool { return i > 0 }))
		if !ok {
			return "", false
		}
		mu42Entry(d.expect, i)["error"] = "config"
		return fmt.Sprintf("push %d: error → \"config\"", i), true
	}},
	{name: "config-case-made-valid", only: func(c *mu42Case) bool { return c.config }, apply: func(r *rand.Rand, c *mu42Case, d *mu42Doc) (string, bool) {
		mu42Entry(d.expect, 0)["error"] = nil
		return `expect[0].error "config" → null`, true
	}},
	{name: "config-case-made-data-error", only: func(c *mu42Case) bool { return c.config }, apply: func(r *rand.Rand, c *mu42Case, d *mu42Doc) (string, bool) {
		class := mu42Classes[r.IntN(len(mu42Classes))]
		mu42Entry(d.expect, 0)["error"] = class
		return fmt.Sprintf(`expect[0].error "config" → %q`, class), true
	}},
	{name: "valid-case-made-config", only: func(c *mu42Case) bool { return !c.config }, apply: func(r *rand.Rand, c *mu42Case, d *mu42Doc) (string, bool) {
		mu42Entry(d.expect, 0)["error"] = "config"
		return `expect[0].error → "config"`, true
	}},
	// The expect list itself.
	{name: "expect-entry-dropped", only: func(c *mu42Case) bool { return !c.config }, apply: func(r *rand.Rand, c *mu42Case, d *mu42Doc) (string, bool) {
		d.expect = d.expect[:len(d.expect)-1]
		return "last expect entry dropped", true
	}},
	{name: "expect-entry-added", only: func(c *mu42Case) bool { return !c.config }, apply: func(r *rand.Rand, c *mu42Case, d *mu42Doc) (string, bool) {
		d.expect = append(d.expect, mu42Copy(d.expect[len(d.expect)-1]))
		return "last expect entry repeated", true
	}},
	// A step the runner cannot read.
	{name: "step-op-removed", apply: mu42StepOp(func(step map[string]json.RawMessage) { delete(step, "op") })},
}

// mu42Mutant is one mutated case to run.
type mu42Mutant struct {
	ID      string `json:"id"`
	Path    string `json:"path"`
	Workers int    `json:"workers"`
	op      string
	kase    string
	desc    string
	control bool
}

// mu42Generate applies every op to up to mu42PerOp seeded cases, and adds
// an unmutated control for every (case, workers) used.
func mu42Generate(t testing.TB, cases []*mu42Case, ops []mu42Op, dir string) []mu42Mutant {
	var out []mu42Mutant
	controls := map[string]bool{}
	for k, op := range ops {
		h := fnv.New64a()
		h.Write([]byte(op.name))
		r := rand.New(rand.NewPCG(mu42Seed, h.Sum64()))
		order := r.Perm(len(cases))
		n := 0
		for _, ci := range order {
			if n == mu42PerOp {
				break
			}
			c := cases[ci]
			if c.rows > mu42MaxRows || (op.only != nil && !op.only(c)) {
				continue
			}
			d := c.doc(t)
			desc, ok := op.apply(r, c, d)
			if !ok {
				continue
			}
			w := []int{1, 2, 4}[r.IntN(3)]
			id := fmt.Sprintf("m%02d_%d", k, n)
			path := filepath.Join(dir, id+".json")
			require.NoError(t, os.WriteFile(path, d.bytes(t), 0o644))
			out = append(out, mu42Mutant{ID: id, Path: path, Workers: w, op: op.name, kase: c.name, desc: desc})
			n++
			cid := fmt.Sprintf("c_%s_%d", c.name, w)
			if !controls[cid] {
				controls[cid] = true
				path := filepath.Join(dir, cid+".json")
				require.NoError(t, os.WriteFile(path, c.doc(t).bytes(t), 0o644))
				out = append(out, mu42Mutant{ID: cid, Path: path, Workers: w, kase: c.name, control: true})
			}
		}
	}
	return out
}

// mu42ChildEnv is the environment of a child process: this one's, without
// the race detector's default one-second sleep at exit (a data race still
// fails the child's test and is looked for in its output).
func mu42ChildEnv() []string {
	return append(os.Environ(), "GORACE="+strings.TrimSpace(os.Getenv("GORACE")+" atexit_sleep_ms=0"))
}

// mu42Run runs the mutants in child processes of this test binary and
// returns the outcome of each: "pass", "fail", "skip", or "crash" (the
// runner panicked, which kills the child; the rest run in a new one).
func mu42Run(t testing.TB, ms []mu42Mutant) map[string]string {
	dir := t.TempDir()
	out := map[string]string{}
	todo := ms
	for round := 0; len(todo) > 0; round++ {
		manifest := filepath.Join(dir, fmt.Sprintf("manifest%d.json", round))
		results := filepath.Join(dir, fmt.Sprintf("results%d.txt", round))
		raw, err := json.Marshal(todo)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(manifest, raw, 0o644))
		cmd := exec.Command(os.Args[0], "-test.run=^TestMu42Child$", "-test.count=1", "-test.timeout=5m")
		cmd.Env = append(mu42ChildEnv(), "MU42_MANIFEST="+manifest, "MU42_RESULTS="+results)
		output, _ := cmd.CombinedOutput()
		require.NotContains(t, string(output), "WARNING: DATA RACE", "the child found a data race:\n%s", output)
		f, err := os.Open(results)
		require.NoError(t, err, "the child wrote no results:\n%s", output)
		started := ""
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			status, id, _ := strings.Cut(sc.Text(), " ")
			if status == "start" {
				started = id
				continue
			}
			out[id] = status
			started = ""
		}
		require.NoError(t, f.Close())
		if started != "" {
			out[started] = "crash"
		}
		var rest []mu42Mutant
		for _, m := range todo {
			if _, done := out[m.ID]; !done {
				rest = append(rest, m)
			}
		}
		require.Less(t, len(rest), len(todo), "the child made no progress:\n%s", output)
		todo = rest
	}
	return out
}

// TestMu42Child runs, in a child process started by mu42Run, every case of
// its manifest through runVector as TestConformance does (with the same
// worker settings), one subtest each, writing "start <id>" and then
// "<pass|fail|skip> <id>" to the results file.
func TestMu42Child(t *testing.T) {
	manifest := os.Getenv("MU42_MANIFEST")
	if manifest == "" {
		t.Skip("run by the mutation probes in a child process")
	}
	defer engine.SetHandOffRows(engine.SetHandOffRows(1))
	defer aligned.SetCloseSplitRows(aligned.SetCloseSplitRows(1 << 30))
	defer workers.SetGateForce(workers.SetGateForce(2))
	defer workers.SetEveryPart(workers.SetEveryPart(true))
	raw, err := os.ReadFile(manifest)
	require.NoError(t, err)
	var ms []mu42Mutant
	require.NoError(t, json.Unmarshal(raw, &ms))
	res, err := os.OpenFile(os.Getenv("MU42_RESULTS"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	require.NoError(t, err)
	defer res.Close()
	for _, m := range ms {
		_, err := fmt.Fprintf(res, "start %s\n", m.ID)
		require.NoError(t, err)
		skipped := false
		ok := t.Run(m.ID, func(t *testing.T) {
			defer func() { skipped = t.Skipped() }()
			runVector(t, m.Path, m.Workers)
		})
		status := "fail"
		switch {
		case skipped:
			status = "skip"
		case ok:
			status = "pass"
		}
		_, err = fmt.Fprintf(res, "%s %s\n", status, m.ID)
		require.NoError(t, err)
	}
}

// TestMu42RunnerFailsEveryMutatedExpectation is the probe: every mutant of
// mu42Ops must make the runner fail, and every control must pass.
func TestMu42RunnerFailsEveryMutatedExpectation(t *testing.T) {
	cases := mu42LoadCases(t)
	ms := mu42Generate(t, cases, mu42Ops, t.TempDir())
	got := mu42Run(t, ms)
	perOp := map[string]int{}
	var survivors []string
	for _, m := range ms {
		if m.control {
			require.Equal(t, "pass", got[m.ID], "control: the unmutated case %s at %d workers must pass", m.kase, m.Workers)
			continue
		}
		perOp[m.op]++
		t.Logf("%s %s of %s at %d workers (%s): %s", m.ID, m.op, m.kase, m.Workers, m.desc, got[m.ID])
		if got[m.ID] != "fail" && got[m.ID] != "crash" {
			survivors = append(survivors, fmt.Sprintf("%s of %s (%s) at %d workers: %s", m.op, m.kase, m.desc, m.Workers, got[m.ID]))
		}
	}
	require.Empty(t, survivors, "mutations the runner did not catch")
	n := 0
	for _, op := range mu42Ops {
		require.Positive(t, perOp[op.name], "mutation %s applied to no case", op.name)
		n += perOp[op.name]
	}
	t.Logf("%d mutants of %d mutations over %d cases, all caught", n, len(mu42Ops), len(cases))
}

var mu42ResultLine = regexp.MustCompile(`--- (PASS|FAIL|SKIP): TestConformance/(\S+/workers=\d+) `)

// mu42RunConformance runs the real TestConformance in a child process of
// this test binary over a folder holding only the given cases (name →
// contents), through POND_VECTORS, and returns the outcome of each
// subtest ("<name>/workers=<n>" → PASS, FAIL or SKIP) and whether the
// child, that is `go test`, failed.
func mu42RunConformance(t testing.TB, files map[string][]byte) (map[string]string, bool) {
	dir := t.TempDir()
	for name, raw := range files {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name+".json"), raw, 0o644))
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestConformance$", "-test.v", "-test.count=1", "-test.timeout=5m")
	cmd.Env = append(mu42ChildEnv(), "POND_VECTORS="+dir)
	output, err := cmd.CombinedOutput()
	require.NotContains(t, string(output), "WARNING: DATA RACE", "the child found a data race:\n%s", output)
	got := map[string]string{}
	for _, m := range mu42ResultLine.FindAllStringSubmatch(string(output), -1) {
		got[m[2]] = m[1]
	}
	return got, err != nil
}

// mu42CaseNamed returns the case of that name.
func mu42CaseNamed(t testing.TB, cases []*mu42Case, name string) *mu42Case {
	for _, c := range cases {
		if c.name == name {
			return c
		}
	}
	require.FailNowf(t, "no such case", "%s", name)
	return nil
}

// TestMu42RealRunnerFailsAMutantAtEveryWorkerCount runs TestConformance
// itself (not runVector) on unmutated cases and on one mutant of each:
// every case must run at 1, 2 and 4 workers, the controls pass at each,
// every mutant fails at each, and `go test` fails.
func TestMu42RealRunnerFailsAMutantAtEveryWorkerCount(t *testing.T) {
	names := []string{"partition-event-trigger", "fused-two-windows-clock", "random-7001-0011-part-clock"}
	cases := mu42LoadCases(t, names...)
	files := map[string][]byte{}
	var mutants []string
	for i, name := range names {
		c := mu42CaseNamed(t, cases, name)
		files[name] = c.doc(t).bytes(t)
		d := c.doc(t)
		desc, ok := mu42Ops[0].apply(rand.New(rand.NewPCG(mu42Seed, uint64(i))), c, d)
		require.True(t, ok)
		t.Logf("%s: %s", name, desc)
		files[name+"-mu42"] = d.bytes(t)
		mutants = append(mutants, name+"-mu42")
	}
	got, failed := mu42RunConformance(t, files)
	require.True(t, failed, "go test must fail when a case is wrong")
	require.Len(t, got, 3*len(files), "every case at 1, 2 and 4 workers: %v", got)
	for name := range files {
		want := "PASS"
		if slices.Contains(mutants, name) {
			want = "FAIL"
		}
		for _, w := range []int{1, 2, 4} {
			require.Equal(t, want, got[fmt.Sprintf("%s/workers=%d", name, w)], "%s at %d workers", name, w)
		}
	}
}

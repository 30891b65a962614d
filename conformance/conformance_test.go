package conformance_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/big"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pond-go/pond/internal/aligned"
	"github.com/pond-go/pond/internal/engine"
	"github.com/pond-go/pond/internal/workers"
	"github.com/pond-go/pond/live"
	"github.com/pond-go/pond/schema"
	"github.com/pond-go/pond/sequence"
)

// The conformance test runs every case of the vectors shared with pond-ts
// (their format: testdata/vectors/FORMAT.md), or of the folder named by
// POND_VECTORS.

type vector struct {
	Name     string `json:"name"`
	About    string `json:"about"`
	Differs  string `json:"differs"`
	Schema   []vecColumn
	Series   vecSeries
	Pipeline []map[string]json.RawMessage
	Pushes   [][][]json.RawMessage
	Expect   []vecExpect
	Tol      *float64 `json:"tolerance"`
}

type vecColumn struct {
	Name     string `json:"name"`
	Kind     string `json:"kind"`
	Required *bool  `json:"required"`
}

type vecSeries struct {
	Name      string `json:"name"`
	Retention struct {
		MaxAge    string `json:"maxAge"`
		MaxEvents *int   `json:"maxEvents"`
	} `json:"retention"`
	Ordering string `json:"ordering"`
	Grace    string `json:"grace"`
}

type vecExpect struct {
	Error   *string             `json:"error"`
	Events  [][]json.RawMessage `json:"events"`
	Length  *int                `json:"length"`
	Evicted *int                `json:"evicted"`
}

// notImplemented is returned by a step builder for an operation the library
// does not have yet; the case is then skipped with that message.
type notImplemented string

func (n notImplemented) Error() string { return "not implemented: " + string(n) }

// sharedVectors is the project's vectors folder, beside the checkout;
// copyVectors is the verbatim copy kept in the repository for machines
// that have only the checkout.
var (
	sharedVectors = filepath.Join("..", "..", "shared", "vectors")
	copyVectors   = filepath.Join("testdata", "vectors")
)

func vectorDir() string {
	if d := os.Getenv("POND_VECTORS"); d != "" {
		return d
	}
	if st, err := os.Stat(sharedVectors); err == nil && st.IsDir() {
		return sharedVectors
	}
	return copyVectors
}

// TestVectorCopyIsVerbatim guards the copy in testdata: where the shared
// folder exists, every file must be byte for byte the same, so the copy
// can be neither stale nor edited.
func TestVectorCopyIsVerbatim(t *testing.T) {
	if _, err := os.Stat(sharedVectors); err != nil {
		t.Skipf("no shared vectors folder at %s to compare the copy with", sharedVectors)
	}
	seen := map[string]bool{}
	err := filepath.WalkDir(sharedVectors, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(sharedVectors, p)
		seen[rel] = true
		want, err := os.ReadFile(p)
		require.NoError(t, err)
		got, err := os.ReadFile(filepath.Join(copyVectors, rel))
		require.NoError(t, err, "testdata/vectors lacks %s: refresh it with cp -r ../shared/vectors testdata/", rel)
		require.Equal(t, string(want), string(got), "testdata/vectors/%s differs from the shared one: refresh the copy", rel)
		return nil
	})
	require.NoError(t, err)
	err = filepath.WalkDir(copyVectors, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(copyVectors, p)
		require.True(t, seen[rel], "testdata/vectors/%s is not in the shared folder", rel)
		return nil
	})
	require.NoError(t, err)
}

func TestConformance(t *testing.T) {
	// With workers, every push's buffered rows go to a worker to take
	// before the tick (by default only runs of 512 or more), and every
	// aligned closing may be split (by default only those with few rows a
	// partition); every other tick and such closing is split and the
	// others done alone (by default the workers' gate chooses).
	defer engine.SetHandOffRows(engine.SetHandOffRows(1))
	defer aligned.SetCloseSplitRows(aligned.SetCloseSplitRows(1 << 30))
	defer workers.SetGateForce(workers.SetGateForce(2))
	defer workers.SetEveryPart(workers.SetEveryPart(true))
	dir := vectorDir()
	var files []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(p, ".json") {
			files = append(files, p)
		}
		return nil
	})
	require.NoError(t, err, "reading the vectors folder %s (set POND_VECTORS)", dir)
	require.NotEmpty(t, files, "no vectors under %s", dir)
	slices.Sort(files)
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".json")
		// Every vector at one worker and spread over two and four: the
		// rows must not depend on the number of workers.
		for _, w := range []int{1, 2, 4} {
			t.Run(fmt.Sprintf("%s/workers=%d", name, w), func(t *testing.T) { runVector(t, f, w) })
		}
	}
}

func runVector(t *testing.T, path string, workers int) {
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	var v vector
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields() // a misspelt field would go unchecked
	require.NoError(t, dec.Decode(&v), "parsing %s", path)
	require.Len(t, v.Expect, len(v.Pushes), "expect and pushes differ in length")
	require.NotEmpty(t, v.Expect, "a case with no push checks nothing")
	tol := 1e-9
	if v.Tol != nil {
		tol = *v.Tol
	}

	s, last, err := buildVector(&v, workers)
	if s != nil {
		defer s.Close()
	}
	var ni notImplemented
	if errors.As(err, &ni) {
		// Every case must pass: one the runner cannot build fails, or a
		// vector with a new step would pass unread.
		t.Fatalf("%v: the runner cannot build this case", ni)
	}
	if len(v.Expect) > 0 && v.Expect[0].Error != nil && *v.Expect[0].Error == "config" {
		require.Error(t, err, "building the pipeline must fail")
		require.ErrorIs(t, err, live.ErrConfig, "a config error must wrap live.ErrConfig")
		return
	}
	require.NoError(t, err, "building the pipeline")

	require.NoError(t, s.Watch(last, live.Event))
	var out []live.Output
	for i, push := range v.Pushes {
		rows := make([]schema.Row, len(push))
		for k, r := range push {
			rows[k] = jsonRow(s.Schema(), r)
		}
		before := s.Stats()
		out, err = s.PushRows(out[:0], rows...)
		exp := v.Expect[i]
		if exp.Error != nil {
			require.Error(t, err, "push %d must fail with %s", i, *exp.Error)
			want := map[string]error{
				"validation":   schema.ErrValidation,
				"out-of-order": live.ErrOutOfOrder,
				"late":         live.ErrLate,
			}[*exp.Error]
			require.NotNil(t, want, "unknown error class %q", *exp.Error)
			require.ErrorIs(t, err, want, "push %d", i)
			require.Empty(t, out, "a failed push emits nothing")
			require.Equal(t, before, s.Stats(), "a failed push changes nothing")
		} else {
			require.NoError(t, err, "push %d", i)
		}
		var got []*schema.Table
		for _, o := range out {
			if o.Node == last && o.Kind == live.Event {
				got = append(got, o.Events)
			}
		}
		compareEvents(t, i, exp.Events, got, tol)
		if exp.Length != nil {
			require.Equal(t, *exp.Length, s.Len(), "push %d: length", i)
		}
		if exp.Evicted != nil {
			require.Equal(t, uint64(*exp.Evicted), s.Stats().Evicted-before.Evicted, "push %d: evicted", i)
		}
	}
}

func buildVector(v *vector, workers int) (*live.Series, live.NodeID, error) {
	cols := make([]schema.Column, len(v.Schema))
	for i, c := range v.Schema {
		k, err := schema.ParseKind(c.Kind)
		if err != nil {
			return nil, 0, err
		}
		cols[i] = schema.Column{Name: c.Name, Kind: k, Optional: c.Required != nil && !*c.Required}
	}
	sch, err := schema.New(cols...)
	if err != nil {
		return nil, 0, err
	}
	opts := live.Options{Workers: workers}
	if v.Series.Retention.MaxAge != "" {
		if opts.MaxAge, err = durationOpt("maxAge", v.Series.Retention.MaxAge); err != nil {
			return nil, 0, err
		}
	}
	if v.Series.Retention.MaxEvents != nil {
		opts.MaxEvents = *v.Series.Retention.MaxEvents
	}
	if opts.Ordering, err = live.ParseOrdering(v.Series.Ordering); err != nil {
		return nil, 0, err
	}
	if v.Series.Grace != "" {
		if opts.Grace, err = durationOpt("grace", v.Series.Grace); err != nil {
			return nil, 0, err
		}
	}
	s, err := live.New(v.Series.Name, sch, opts)
	if err != nil {
		return nil, 0, err
	}
	node := s.Root()
	for _, step := range v.Pipeline {
		var op string
		if err := json.Unmarshal(step["op"], &op); err != nil {
			return nil, 0, fmt.Errorf("step without op: %w", err)
		}
		build, ok := steps[op]
		if !ok {
			return nil, 0, notImplemented(op)
		}
		if node, err = build(s, node, step); err != nil {
			return nil, 0, err
		}
	}
	return s, node, nil
}

// steps maps a vector operation to the code that builds it.
var steps = map[string]func(s *live.Series, src live.NodeID, step map[string]json.RawMessage) (live.NodeID, error){}

// durationOpt parses a duration string of a vector, wrapping a bad one as a
// config error, as the library's own option parsing would.
func durationOpt(field, s string) (time.Duration, error) {
	d, err := sequence.ParseDuration(s)
	if err != nil {
		return 0, &live.ConfigError{Op: "vector", Field: field, Reason: "bad duration", Err: err}
	}
	return d, nil
}

// jsonRow converts a vector row to values: the time in milliseconds, then
// cells by the column's kind; the string "NaN" (or "Infinity") in a number
// column is that non-finite number.
func jsonRow(s *schema.Schema, r []json.RawMessage) schema.Row {
	row := make(schema.Row, len(r))
	for j, raw := range r {
		if j == 0 {
			if ns, err := msNanos(string(raw)); err == nil {
				row[0] = schema.NanosValue(ns)
				continue
			}
		}
		var x any
		if err := json.Unmarshal(raw, &x); err != nil {
			panic(err)
		}
		if j < s.Len() && s.Column(j).Kind == schema.Number {
			if str, ok := x.(string); ok {
				switch str {
				case "NaN":
					x = math.NaN()
				case "Infinity":
					x = math.Inf(1)
				case "-Infinity":
					x = math.Inf(-1)
				}
			}
		}
		v, err := schema.Of(x)
		if err != nil {
			panic(err)
		}
		row[j] = v
	}
	return row
}

// msNanos converts a JSON number of epoch milliseconds to nanoseconds
// exactly. Going through float64 would not do: a real epoch time (about
// 1.7e12 ms) times 1e6 is above 2^53, so the product would be off by up
// to 128 ns and could cross a window or clock edge.
func msNanos(num string) (int64, error) {
	r, ok := new(big.Rat).SetString(strings.TrimSpace(num))
	if !ok {
		return 0, fmt.Errorf("%q is not a number", num)
	}
	r.Mul(r, big.NewRat(1_000_000, 1))
	if !r.IsInt() || !r.Num().IsInt64() {
		return 0, fmt.Errorf("%s ms is not a whole number of nanoseconds in int64", num)
	}
	return r.Num().Int64(), nil
}

func compareEvents(t *testing.T, push int, want [][]json.RawMessage, got []*schema.Table, tol float64) {
	t.Helper()
	var rows []gotRow
	for _, tab := range got {
		for i := range tab.Len() {
			rec := map[string]schema.Value{}
			for j := 1; j < tab.Schema().Len(); j++ {
				rec[tab.Schema().Column(j).Name] = tab.Value(i, j)
			}
			rows = append(rows, gotRow{t: tab.TimeNanos(i), rec: rec})
		}
	}
	if len(want) != len(rows) {
		require.Failf(t, "number of events", "push %d: %d events, want %d; got %s", push, len(rows), len(want), fmtRows(rows))
	}
	for k, w := range want {
		wantT, err := msNanos(string(w[0]))
		require.NoError(t, err, "push %d event %d: time", push, k)
		var rec map[string]any
		require.NoError(t, json.Unmarshal(w[1], &rec))
		g := rows[k]
		if wantT != g.t {
			// The message formats every row: only on failure.
			require.Failf(t, "time differs", "push %d event %d: time %d, want %d; got %s", push, k, g.t, wantT, fmtRows(rows))
		}
		keys := make([]string, 0, len(rec))
		for c := range rec {
			keys = append(keys, c)
		}
		gotKeys := make([]string, 0, len(g.rec))
		for c := range g.rec {
			gotKeys = append(gotKeys, c)
		}
		slices.Sort(keys)
		slices.Sort(gotKeys)
		require.Equal(t, keys, gotKeys, "push %d event %d: columns", push, k)
		for c, wv := range rec {
			if !sameValue(wv, g.rec[c], tol) {
				require.Failf(t, "value differs", "push %d event %d (t=%d ns) column %q: want %v, got %v\nall: %s",
					push, k, wantT, c, wv, g.rec[c], fmtRows(rows))
			}
		}
	}
}

type gotRow struct {
	t   int64
	rec map[string]schema.Value
}

func fmtRows(rows []gotRow) string {
	var b strings.Builder
	for _, r := range rows {
		fmt.Fprintf(&b, "\n  %d:", r.t/1e6)
		keys := make([]string, 0, len(r.rec))
		for k := range r.rec {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			fmt.Fprintf(&b, " %s=%s", k, r.rec[k])
		}
	}
	return b.String()
}

func sameValue(want any, got schema.Value, tol float64) bool {
	switch w := want.(type) {
	case nil:
		return got.IsMissing()
	case float64:
		g, ok := got.Num()
		return ok && math.Abs(g-w) <= tol*math.Max(1, math.Abs(w))
	case string:
		g, ok := got.Str()
		return ok && g == w
	case bool:
		g, ok := got.Bool()
		return ok && g == w
	case []any:
		g, ok := got.Array()
		if !ok || len(g) != len(w) {
			return false
		}
		for i := range w {
			if !sameValue(w[i], g[i], tol) {
				return false
			}
		}
		return true
	}
	return reflect.DeepEqual(want, got.Any())
}

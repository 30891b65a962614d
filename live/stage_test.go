package live_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pond-go/pond/live"
	"github.com/pond-go/pond/partition"
	"github.com/pond-go/pond/reduce"
	"github.com/pond-go/pond/rolling"
	"github.com/pond-go/pond/schema"
	"github.com/pond-go/pond/sequence"
	"github.com/pond-go/pond/trigger"
)

// plainSchema is a schema of number and string columns only, whose
// batches without missing cells a series checks while it stores them.
var plainSchema = schema.MustNew(
	schema.Column{Name: "time", Kind: schema.Time},
	schema.Column{Name: "cpu", Kind: schema.Number},
	schema.Column{Name: "requests", Kind: schema.Number},
	schema.Column{Name: "host", Kind: schema.String},
)

// plainHosts are the partitioning's declared groups; a row of another
// host refuses its push after its cells were checked.
var plainHosts = []string{"a", "b", "c"}

// plainTwin is a series of plainSchema with the seed's kind of nodes (a
// partitioning with declared groups and a rolling on it, a rolling count
// on the root, both under a clock), every output watched.
func plainTwin(t *testing.T, alone bool) *live.Series {
	t.Helper()
	s, err := live.New("plain", plainSchema, live.Options{MaxAge: 3 * time.Second})
	require.NoError(t, err)
	if alone {
		live.ValidateAlone(s)
	}
	groups := make([]schema.Value, len(plainHosts))
	for i, h := range plainHosts {
		groups[i] = schema.StringValue(h)
	}
	byHost, err := s.PartitionBy(s.Root(), "host", partition.Options{Groups: groups, MaxEvents: 1})
	require.NoError(t, err)
	clock := trigger.Clock(sequence.Every(100 * time.Millisecond))
	hosts, err := s.Rolling(byHost, []rolling.Window{{Name: "1s", Span: time.Second, Aggs: []reduce.Agg{
		{Out: "cpu_avg", From: "cpu", Using: reduce.Avg},
		{Out: "req_sum", From: "requests", Using: reduce.Sum},
		{Out: "cpu_max", From: "cpu", Using: reduce.Max},
	}}}, rolling.Options{Trigger: clock})
	require.NoError(t, err)
	count, err := s.Rolling(s.Root(), []rolling.Window{{Name: "1s", Span: time.Second, Aggs: []reduce.Agg{
		{Out: "n", From: "cpu", Using: reduce.Count},
	}}}, rolling.Options{Trigger: clock})
	require.NoError(t, err)
	require.NoError(t, s.Watch(s.Root(), live.Event, live.Evict))
	require.NoError(t, s.Watch(byHost, live.Event, live.Evict))
	require.NoError(t, s.Watch(hosts))
	require.NoError(t, s.Watch(count))
	return s
}

// plainGen makes batches of plainSchema: times from now on, a few
// milliseconds apart, equal now and then; finite numbers; declared hosts.
type plainGen struct {
	rng *rand.Rand
	now int64
}

func (g *plainGen) batch(n int) *schema.Batch {
	b := schema.NewBatch(plainSchema, n)
	for range n {
		if g.rng.IntN(4) != 0 {
			g.now += int64(g.rng.IntN(20)) * int64(time.Millisecond)
		}
		b.Time = append(b.Time, g.now)
		b.Cols[0].Num = append(b.Cols[0].Num, float64(g.rng.IntN(2000))/8-100)
		b.Cols[1].Num = append(b.Cols[1].Num, float64(g.rng.IntN(50)))
		b.Cols[2].Str = append(b.Cols[2].Str, plainHosts[g.rng.IntN(len(plainHosts))])
	}
	return b
}

// heldRows renders the rows a series holds and its counters.
func heldRows(s *live.Series) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%+v\n", s.Stats())
	for i, row := range s.All() {
		fmt.Fprintln(&b, i, row)
	}
	return b.String()
}

// spoil is a way to make a batch invalid at row i; it returns false when
// it does not apply there.
type spoil struct {
	name string
	at   func(b *schema.Batch, i int) bool
}

func spoilNumber(col int, x float64) func(*schema.Batch, int) bool {
	return func(b *schema.Batch, i int) bool { b.Cols[col].Num[i] = x; return true }
}

var spoils = []spoil{
	{"cpu NaN", spoilNumber(0, math.NaN())},
	{"cpu +Inf", spoilNumber(0, math.Inf(1))},
	{"requests -Inf", spoilNumber(1, math.Inf(-1))},
	{"requests NaN", spoilNumber(1, math.NaN())},
	{"time before MinTime", func(b *schema.Batch, i int) bool { b.Time[i] = schema.MinTime - 1; return true }},
	{"time after MaxTime", func(b *schema.Batch, i int) bool { b.Time[i] = schema.MaxTime + 1; return true }},
	{"time before the row before", func(b *schema.Batch, i int) bool {
		if i == 0 {
			return false
		}
		b.Time[i] = b.Time[i-1] - 1
		return true
	}},
	{"time before the latest", func(b *schema.Batch, i int) bool {
		if i != 0 {
			return false
		}
		b.Time[0] -= int64(time.Minute)
		return true
	}},
	{"host not declared", func(b *schema.Batch, i int) bool { b.Cols[2].Str[i] = "z"; return true }},
	{"cpu missing", func(b *schema.Batch, i int) bool {
		b.Cols[0].Missing = make([]bool, len(b.Time))
		b.Cols[0].Missing[i] = true
		return true
	}},
	{"requests short", func(b *schema.Batch, i int) bool {
		if i != len(b.Time)-1 {
			return false
		}
		b.Cols[1].Num = b.Cols[1].Num[:i]
		return true
	}},
	{"a bad number in each column", func(b *schema.Batch, i int) bool {
		b.Cols[0].Num[len(b.Time)-1-i] = math.Inf(-1)
		b.Cols[1].Num[i] = math.NaN()
		return true
	}},
}

// TestStagedPushRefusesAndKeepsAsValidation pushes the same batches to a
// series that checks the common batch while storing its times and numbers
// and to one that validates every batch on its own first: among good
// pushes of 1 to 40 rows, every way of spoiling a batch (a non-finite
// number in either number column, a time out of range, out of order or
// before the latest, an undeclared host, a missing cell, a short column),
// at the first, a middle and the last row, is refused by both with the
// same error, and leaves both holding the same rows as before; every push
// emits the same outputs from both. The rows pass the store's chunk
// boundaries (where the store has no room for a push's rows, it is
// validated on its own).
func TestStagedPushRefusesAndKeepsAsValidation(t *testing.T) {
	staged, alone := plainTwin(t, false), plainTwin(t, true)
	g := &plainGen{rng: rand.New(rand.NewPCG(3, 22)), now: int64(time.Hour)}
	var outS, outA []live.Output
	took, refused := 0, 0
	for push := range 400 {
		n := []int{1, 2, 5, 10, 16, 17, 40}[push%7]
		b := g.batch(n)
		var errS, errA error
		outS, errS = staged.PushMany(outS[:0], b)
		outA, errA = alone.PushMany(outA[:0], b)
		require.NoError(t, errA, "push %d", push)
		require.NoError(t, errS, "push %d", push)
		require.Equal(t, render(outA), render(outS), "push %d", push)
		if live.Staged(staged) {
			took++
		}
		require.False(t, live.Staged(alone))
		if push%5 != 0 {
			continue
		}
		before := heldRows(alone)
		require.Equal(t, before, heldRows(staged), "push %d", push)
		for _, sp := range spoils {
			for _, i := range []int{0, n / 2, n - 1} {
				bad := g.batch(n)
				if !sp.at(bad, i) {
					continue
				}
				_, errS = staged.PushMany(outS[:0], bad)
				_, errA = alone.PushMany(outA[:0], bad)
				require.Error(t, errA, "push %d: %s at row %d of %d", push, sp.name, i, n)
				assert.Equal(t, errA, errS, "push %d: %s at row %d of %d", push, sp.name, i, n)
				assert.Equal(t, before, heldRows(staged), "push %d: %s at row %d of %d", push, sp.name, i, n)
				refused++
			}
		}
	}
	assert.Greater(t, took, 350, "pushes checked while stored")
	assert.Greater(t, refused, 2000)
}

// FuzzPushStaged decodes its input into pushes of plainSchema and makes
// each on a series that checks the common batch while storing it and on
// one that validates every batch on its own first: both refuse the same
// pushes with the same error, emit the same outputs (the root's among
// them: the rows each push keeps and evicts), and hold the same rows
// after a refused push and at the end. At most 64 pushes (rows at equal
// times are never too old to keep, and the rows held are rendered after
// each refused push). Each push is a byte for its row count, then per
// row a byte for the time's step (a few values spoil it: before the row
// before, before the latest, out of range), one for each number (a few
// values are NaN or an infinity) and one for the host (one value is not
// declared).
func FuzzPushStaged(f *testing.F) {
	f.Add([]byte{9, 1, 1, 1, 0, 2, 2, 2, 1, 0, 250, 3, 2})
	// Seeds of pushes of 1 to 20 rows (most of them checked while
	// stored), a cell in a hundred spoiled.
	for seed := range 8 {
		rng := rand.New(rand.NewPCG(uint64(seed), 22))
		var data []byte
		for range 64 {
			n := rng.IntN(20)
			data = append(data, byte(n))
			for range 4 * (n + 1) {
				c := byte(rng.IntN(240))
				if rng.IntN(100) == 0 {
					c = byte(250 + rng.IntN(6))
				}
				data = append(data, c)
			}
		}
		f.Add(data)
	}
	f.Fuzz(stagedBody)
}

// stagedInput decodes FuzzPushStaged's input into batches.
type stagedInput struct {
	fuzzBytes
	now int64
}

func (in *stagedInput) num() float64 {
	switch c := in.next(); c {
	case 250:
		return math.NaN()
	case 251:
		return math.Inf(1)
	case 252:
		return math.Inf(-1)
	default:
		return float64(c)/4 - 20
	}
}

func (in *stagedInput) batch() *schema.Batch {
	n := int(in.next()%48) + 1
	b := schema.NewBatch(plainSchema, n)
	for range n {
		switch c := in.next(); c {
		case 255:
			b.Time = append(b.Time, in.now-1)
		case 254:
			b.Time = append(b.Time, in.now-int64(time.Minute))
		case 253:
			b.Time = append(b.Time, schema.MaxTime+1)
		case 252:
			b.Time = append(b.Time, schema.MinTime-1)
		default:
			in.now += int64(c%8) * int64(time.Millisecond)
			b.Time = append(b.Time, in.now)
		}
		b.Cols[0].Num = append(b.Cols[0].Num, in.num())
		b.Cols[1].Num = append(b.Cols[1].Num, in.num())
		host := "z"
		if c := in.next(); c != 255 {
			host = plainHosts[int(c)%len(plainHosts)]
		}
		b.Cols[2].Str = append(b.Cols[2].Str, host)
	}
	return b
}

// stagedBody is the body of FuzzPushStaged.
func stagedBody(t *testing.T, data []byte) {
	staged, alone := plainTwin(t, false), plainTwin(t, true)
	in := &stagedInput{fuzzBytes: fuzzBytes{data}, now: int64(time.Hour)}
	var outS, outA []live.Output
	for push := 0; len(in.data) > 0 && push < 64; push++ {
		b := in.batch()
		var errS, errA error
		outS, errS = staged.PushMany(outS[:0], b)
		outA, errA = alone.PushMany(outA[:0], b)
		require.Equal(t, errA, errS, "push %d", push)
		require.Equal(t, render(outA), render(outS), "push %d", push)
		require.Equal(t, alone.Stats(), staged.Stats(), "push %d", push)
		// The root's outputs show the rows a push keeps and evicts; the
		// rows held are compared whole after a refused push.
		if errA != nil {
			require.Equal(t, heldRows(alone), heldRows(staged), "push %d", push)
		}
	}
	require.Equal(t, heldRows(alone), heldRows(staged))
}

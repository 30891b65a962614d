package engine

import (
	"errors"
	"runtime"
	"strconv"
	"testing"
	"time"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pond-go/pond/internal/reducers"
	"github.com/pond-go/pond/internal/table"
	"github.com/pond-go/pond/reduce"
	"github.com/pond-go/pond/rolling"
	"github.com/pond-go/pond/schema"
)

func TestWinStatePointsAtItsStatesInTheArena(t *testing.T) {
	// Two windows of several states of each kind: each window's states
	// are its own, side by side in the arena, as many as its plan has.
	windows := []rolling.Window{
		{Name: "1m", Span: time.Minute, Aggs: []reduce.Agg{
			{Out: "v_avg", From: "v", Using: reduce.Avg},
			{Out: "w_sum", From: "w", Using: reduce.Sum},
			{Out: "v_n", From: "v", Using: reduce.Count},
			{Out: "v_min", From: "v", Using: reduce.Min},
			{Out: "w_max", From: "w", Using: reduce.Max},
			{Out: "v_max", From: "v", Using: reduce.Max},
			{Out: "v_med", From: "v", Using: reduce.Median},
		}},
		{Name: "1s", Span: time.Second, Aggs: []reduce.Agg{
			{Out: "w_min", From: "w", Using: reduce.Min},
		}},
	}
	plan, err := NewPlan(testSchema, windows, rolling.Options{}, nil, nil)
	require.NoError(t, err)
	a, b := plan.NewEngine(), plan.NewEngine()
	for w := range plan.wins {
		wp := &plan.wins[w]
		ws, other := &a.wins()[w], &b.wins()[w]
		assert.Len(t, ws.moments(wp), len(wp.moments), "window %s", wp.name)
		assert.Len(t, ws.counts(wp), len(wp.counts), "window %s", wp.name)
		assert.Len(t, ws.mins(wp), len(wp.mins), "window %s", wp.name)
		assert.Len(t, ws.maxs(wp), len(wp.maxs), "window %s", wp.name)
		assert.Len(t, ws.generic(wp), len(wp.generic), "window %s", wp.name)
		for i := range ws.generic(wp) {
			assert.NotSame(t, ws.generic(wp)[i], other.generic(wp)[i], "engines do not share states")
		}
		for i := range ws.maxs(wp) {
			ws.maxs(wp)[i].Add(uint64(i), float64(i))
			assert.NotSame(t, &ws.maxs(wp)[i], &other.maxs(wp)[i])
		}
		for i := range ws.mins(wp) {
			assert.NotSame(t, &ws.mins(wp)[i], &other.mins(wp)[i], "engines do not share states")
		}
	}
	assert.Len(t, a.wins()[0].generic(&plan.wins[0]), 1)
	assert.Equal(t, 2, len(a.wins()[0].maxs(&plan.wins[0])))
	x, ok := a.wins()[0].maxs(&plan.wins[0])[1].Value()
	assert.True(t, ok)
	assert.Equal(t, 1.0, x)
	// Every partition holds these, for every window: no slice of window
	// states in the engine, the cold states' place in the plan (the
	// extremes' offset and counts too), an extreme's ring as a pointer
	// and 32-bit counts, the deque's stride 32-bit.
	assert.LessOrEqual(t, unsafe.Sizeof(deque{}), uintptr(88))
	assert.LessOrEqual(t, unsafe.Sizeof(Engine{}), uintptr(104))
	assert.LessOrEqual(t, unsafe.Sizeof(winState{}), uintptr(24))
	assert.LessOrEqual(t, unsafe.Sizeof(reducers.Extreme{}), uintptr(32))
	assert.LessOrEqual(t, unsafe.Sizeof(reducers.Moments{}), uintptr(56))
	seed, err := NewPlan(benchSchema, seedWindows, rolling.Options{}, nil, nil)
	require.NoError(t, err)
	e := seed.NewEngine()
	assert.LessOrEqual(t, seed.arena.recordBytes(), 384, "the seed's record: six cache lines")
	// A partition-tick at a row a second (100,000 hosts) reads the
	// engine, both window states (the 200 ms window's head and added),
	// and the minute window's two Moments, of the last all but its outer
	// pointer (reducers' TestMomentsHotPartIsItsFirst48Bytes): the first
	// four lines of the record, which starts on one.
	start := uintptr(unsafe.Pointer(e))
	minute := &e.wins()[0]
	require.Equal(t, "1m", seed.wins[0].name)
	last := minute.moment(&seed.wins[0], len(seed.wins[0].moments)-1)
	hot := uintptr(unsafe.Pointer(last)) + unsafe.Sizeof(*last) - 8 - start
	assert.LessOrEqual(t, hot, uintptr(4*cacheLine), "what a partition-tick reads of the seed's record")
	assert.Less(t, uintptr(unsafe.Pointer(&e.wins()[1].added))-start, uintptr(4*cacheLine))
}

func TestPlanRefusesAWindowOfMoreAggregationsThanItsStatesCount(t *testing.T) {
	aggs := make([]reduce.Agg, maxAggs+1)
	for i := range aggs {
		aggs[i] = reduce.Agg{Out: "n" + strconv.Itoa(i), From: "v", Using: reduce.Count}
	}
	_, err := NewPlan(testSchema, []rolling.Window{{Span: time.Second, Aggs: aggs}}, rolling.Options{}, nil, nil)
	var se *rolling.SpecError
	require.True(t, errors.As(err, &se), "err = %v", err)
	assert.Contains(t, se.Reason, "at most 65535")
}

func TestArenaChunksFillTheirSizeClass(t *testing.T) {
	// The seed plan's engines, made by the thousand as partitions appear:
	// the heap they take is what their states need, within 2 % (chunks
	// sized to the allocator's classes, with room for its header, and
	// the last chunk of each kind part-used).
	plan, err := NewPlan(benchSchema, seedWindows, rolling.Options{}, nil, nil)
	require.NoError(t, err)
	const engines = 20000
	var need uintptr
	e := plan.NewEngine()
	need += unsafe.Sizeof(*e)
	wins := e.wins()
	for w := range wins {
		ws, wp := &wins[w], &plan.wins[w]
		need += unsafe.Sizeof(*ws) +
			uintptr(len(ws.moments(wp)))*unsafe.Sizeof(reducers.Moments{}) +
			uintptr(len(ws.mins(wp))+len(ws.maxs(wp)))*unsafe.Sizeof(reducers.Extreme{})
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for range engines {
		plan.NewEngine()
	}
	runtime.ReadMemStats(&after)
	got := float64(after.TotalAlloc-before.TotalAlloc) / engines
	assert.LessOrEqual(t, got, 1.02*float64(need), "bytes an engine takes, against %d its states need", need)
}

func TestEngineStatesLieInItsRecord(t *testing.T) {
	// A tick at many partitions loads each partition's state from the
	// engine's address alone: the engine, its windows and every reducer
	// state lie in one run of bytes from it, no larger than they need.
	windows := []rolling.Window{
		{Name: "1m", Span: time.Minute, Aggs: []reduce.Agg{
			{Out: "v_avg", From: "v", Using: reduce.Avg},
			{Out: "w_sum", From: "w", Using: reduce.Sum},
			{Out: "v_n", From: "v", Using: reduce.Count},
			{Out: "v_min", From: "v", Using: reduce.Min},
			{Out: "v_med", From: "v", Using: reduce.Median},
		}},
		{Name: "1s", Span: time.Second, Aggs: []reduce.Agg{
			{Out: "w_min", From: "w", Using: reduce.Min},
			{Out: "w_max", From: "w", Using: reduce.Max},
		}},
	}
	for _, c := range []struct {
		name    string
		src     *schema.Schema
		windows []rolling.Window
	}{
		{"seed", benchSchema, seedWindows},
		{"every kind", testSchema, windows},
		// The record ends with counts: no state reaches past them (under
		// -race, checkptr fails a pointer beyond a chunk's last record).
		{"counts last", testSchema, []rolling.Window{windows[1], {Name: "2s", Span: 2 * time.Second, Aggs: []reduce.Agg{
			{Out: "n", From: "v", Using: reduce.Count},
			{Out: "wn", From: "w", Using: reduce.Count},
		}}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			plan, err := NewPlan(c.src, c.windows, rolling.Options{}, nil, nil)
			require.NoError(t, err)
			for range 40 { // records at a chunk's end too
				e := plan.NewEngine()
				start := uintptr(unsafe.Pointer(e))
				end := start + uintptr(plan.arena.recordBytes())
				seen := map[uintptr]string{}
				in := func(p unsafe.Pointer, size uintptr, what string) {
					t.Helper()
					assert.True(t, uintptr(p) >= start && uintptr(p)+size <= end, "%s outside the engine's record", what)
					// Each state its own: the offsets a window finds its
					// extremes and rest at do not land on another's.
					assert.Empty(t, seen[uintptr(p)], "%s at the place of another state", what)
					seen[uintptr(p)] = what
				}
				need := unsafe.Sizeof(*e)
				wins := e.wins()
				for w := range wins {
					ws, wp := &wins[w], &plan.wins[w]
					in(unsafe.Pointer(ws), unsafe.Sizeof(*ws), "window state")
					need += unsafe.Sizeof(*ws)
					for i := range ws.moments(wp) {
						in(unsafe.Pointer(&ws.moments(wp)[i]), unsafe.Sizeof(reducers.Moments{}), "moments")
						need += unsafe.Sizeof(reducers.Moments{})
					}
					for i := range ws.mins(wp) {
						in(unsafe.Pointer(&ws.mins(wp)[i]), unsafe.Sizeof(reducers.Extreme{}), "minimum")
						need += unsafe.Sizeof(reducers.Extreme{})
					}
					for i := range ws.maxs(wp) {
						in(unsafe.Pointer(&ws.maxs(wp)[i]), unsafe.Sizeof(reducers.Extreme{}), "maximum")
						need += unsafe.Sizeof(reducers.Extreme{})
					}
					for i := range ws.counts(wp) {
						in(unsafe.Pointer(&ws.counts(wp)[i]), 8, "count")
						need += 8
					}
					for i := range ws.generic(wp) {
						in(unsafe.Pointer(&ws.generic(wp)[i]), 16, "generic state")
						need += 16
					}
					// A kind the window does not keep is no slice at all,
					// not an empty one at the place after its others.
					if len(wp.generic) == 0 {
						assert.Nil(t, ws.generic(wp), "window %d's generic states", w)
					}
					if len(wp.counts) == 0 {
						assert.Nil(t, ws.counts(wp), "window %d's counts", w)
					}
				}
				assert.Equal(t, need, end-start, "the record holds the states and nothing more")
			}
		})
	}
}

func TestAPlansArrayCellsLieInItsRecordsOnly(t *testing.T) {
	// The map of array cells is a field of the records of a plan that
	// reads array columns, and of no other plan's: an engine keeps no
	// map header of its own.
	arrSchema := schema.MustNew(
		schema.Column{Name: "time", Kind: schema.Time},
		schema.Column{Name: "v", Kind: schema.Number},
		schema.Column{Name: "tags", Kind: schema.Array, Optional: true},
	)
	win := func(aggs ...reduce.Agg) []rolling.Window {
		return []rolling.Window{{Name: "1s", Span: time.Second, Aggs: aggs}}
	}
	plain, err := NewPlan(arrSchema, win(reduce.Agg{Out: "v", From: "v", Using: reduce.Last}), rolling.Options{}, nil, nil)
	require.NoError(t, err)
	arrs, err := NewPlan(arrSchema, win(reduce.Agg{Out: "v", From: "v", Using: reduce.Last}, reduce.Agg{Out: "tags", From: "tags", Using: reduce.Last}), rolling.Options{}, nil, nil)
	require.NoError(t, err)
	plain.NewEngine()
	e := arrs.NewEngine()
	assert.Zero(t, plain.arena.layout.arr, "no map in a plan without arrays")
	assert.Equal(t, uintptr(arrs.arena.recordBytes()), arrs.arena.layout.arr+8, "the map last in the record")
	assert.Greater(t, arrs.arena.layout.arr, unsafe.Sizeof(Engine{}))
	at := unsafe.Add(unsafe.Pointer(e), arrs.arena.layout.arr)

	tab := schema.NewTable(arrSchema)
	table.Column(tab, 0).AppendTime(1)
	table.Column(tab, 1).AppendNum(2)
	table.Column(tab, 2).AppendArray([]schema.Value{schema.NumberValue(3)})
	var in Input
	arrs.Bind(&in, tab, nil)
	e.Append(&in, 0)
	require.Len(t, e.arrs(), 1)
	e.Fold(1)
	v := e.value(2, 0, e.dq.row(0)[2])
	assert.True(t, schema.ArrayValue(schema.NumberValue(3)).Equal(v), "the row's array cell: %v", v)
	e.Release()
	assert.Nil(t, *(*map[uint64][]schema.Value)(at), "a released engine lets go of its cells")
	assert.Same(t, e, arrs.NewEngine(), "reused")
	assert.NotNil(t, e.arrs())
	assert.Empty(t, e.arrs())
}

func TestRecordsOfWholeLinesStartOnALine(t *testing.T) {
	// A tick at 100,000 partitions loads each record from memory: the
	// seed's 384-byte record is six cache lines when it starts on one,
	// seven when it does not. Records of other sizes are packed.
	seed, err := NewPlan(benchSchema, seedWindows, rolling.Options{}, nil, nil)
	require.NoError(t, err)
	one, err := NewPlan(testSchema, []rolling.Window{{Name: "1s", Span: time.Second, Aggs: []reduce.Agg{
		{Out: "s", From: "v", Using: reduce.Sum},
	}}}, rolling.Options{}, nil, nil)
	require.NoError(t, err)
	for _, c := range []struct {
		name  string
		plan  *Plan
		lines bool
	}{{"seed", seed, true}, {"one sum", one, false}} {
		t.Run(c.name, func(t *testing.T) {
			var prev *Engine
			strides := map[uintptr]int{}
			var size uintptr
			for i := range 400 { // the small chunks, then 32 KB ones
				e := c.plan.NewEngine()
				size = uintptr(c.plan.arena.recordBytes())
				at := uintptr(unsafe.Pointer(e))
				if c.lines {
					require.Zero(t, at%cacheLine, "record %d at %#x", i, at)
				}
				if prev != nil && at > uintptr(unsafe.Pointer(prev)) {
					strides[at-uintptr(unsafe.Pointer(prev))]++
				}
				prev = e
			}
			assert.Equal(t, c.plan.arena.layout.typ.Size(), size, "no padding in a record")
			assert.Equal(t, c.lines, size%cacheLine == 0, "size %d", size)
			// Within a chunk, one record follows another.
			most, count := uintptr(0), 0
			for s, k := range strides {
				if k > count {
					most, count = s, k
				}
			}
			assert.Equal(t, size, most, "the records' stride")
			if c.lines {
				assert.Equal(t, 384, int(size))
				// A 32 KB chunk holds as many records as without the lead.
				assert.Equal(t, 85, chunkLen(int(size), 85-1))
				assert.Equal(t, uintptr(56), lineLead(size, 85))
			}
		})
	}
}

// capNames are keys that tell how many partition indices they have, as
// the partition router does.
type capNames []schema.Value

func (k capNames) KeyValue(p int32) schema.Value { return k[p] }
func (k capNames) Cap() int                      { return len(k) }

func TestArenaEndsTheChunksOfAPushsPartitionsNearTheLast(t *testing.T) {
	// A group whose keys tell how many partitions they have makes the
	// engines of the 1,000 partitions a push brought: the arena sizes
	// the last chunk to the engines still to make (11, in an 8 KB chunk
	// of 21), not to the next of its sizes in turn (32 KB, of which 74
	// records would stay unused), so the heap the engines take is what
	// their states need within 3 %, not 9 %.
	const parts = 1000
	var g *Group
	var before, after runtime.MemStats
	for range 2 { // the first makes the record's and chunks' types
		plan, err := NewPlan(benchSchema, seedWindows, rolling.Options{}, nil, nil)
		require.NoError(t, err)
		g = plan.NewGroup(make(capNames, parts))
		g.engines, g.order = make([]*Engine, 0, parts), make([]int32, 0, parts)
		runtime.GC()
		runtime.ReadMemStats(&before)
		for p := range int32(parts) {
			g.engine(p)
		}
		runtime.ReadMemStats(&after)
	}
	a := &g.p.arena
	size := a.recordBytes()
	assert.Equal(t, fitLen(size, 11), a.n, "the last chunk's records")
	assert.Equal(t, 11, a.used)
	assert.LessOrEqual(t, float64(after.TotalAlloc-before.TotalAlloc), 1.03*float64(parts*size), "bytes the engines take")
}

func TestArenaGivesPartitionsThatComeAFewAtATimeItsSizesInTurn(t *testing.T) {
	// Partitions that come one or ten at a time, an engine made for each
	// before the next come, fill chunks of the arena's sizes in turn, up
	// to 32 KB: a chunk sized to the few still wanted would be one of
	// 8 KB at every turn.
	for _, few := range []int{1, 10} {
		plan, err := NewPlan(benchSchema, seedWindows, rolling.Options{}, nil, nil)
		require.NoError(t, err)
		var keys capNames
		g := plan.NewGroup(keys)
		for len(keys) < 1000 {
			keys = append(keys, make(capNames, few)...)
			g.keys, g.kc = keys, keys
			for p := len(g.order); p < len(keys); p++ {
				g.engine(int32(p))
			}
		}
		a := &plan.arena
		assert.Equal(t, chunkLen(a.recordBytes(), 85), a.n, "%d at a time: the last chunk's records", few)
	}
}

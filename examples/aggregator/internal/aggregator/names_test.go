package aggregator

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/pond-go/pond/examples/aggregator/internal/eventsv1"
	"github.com/pond-go/pond/schema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The table gives a name the same index wherever it appears in a batch,
// also when a sender changes the order of its hosts, and a new name the
// next index.
func TestHostNamesIndexEachNameOnce(t *testing.T) {
	var h hostNames
	batch := func(names ...string) []uint32 {
		h.roll()
		var ids []uint32
		for i, n := range names {
			ids = append(ids, h.id(i, []byte(n)))
		}
		return ids
	}
	assert.Equal(t, []uint32{0, 1, 2}, batch("a", "b", "c"))
	assert.Equal(t, []uint32{0, 1, 2}, batch("a", "b", "c"))
	assert.Equal(t, []uint32{2, 0, 3, 1}, batch("c", "a", "d", "b"))
	assert.Equal(t, []uint32{0, 0}, batch("a", "a"))
	assert.Equal(t, []string{"a", "b", "c", "d"}, h.view())
	assert.Equal(t, uint32(4), h.idOf("e"))
	assert.Equal(t, uint32(2), h.idOf("c"))
}

// A full table starts a new list between batches; the lists chunks kept
// before still name their rows' hosts.
func TestHostNamesStartOverWhenFullAndOldViewsStay(t *testing.T) {
	var h hostNames
	h.roll()
	for i := range maxNames {
		h.idOf(fmt.Sprint("h", i))
	}
	old := h.view()
	require.Len(t, old, maxNames)
	h.roll()
	assert.Empty(t, h.view(), "a full table starts over")
	assert.Equal(t, uint32(0), h.id(0, []byte("new")))
	assert.Equal(t, "h7", old[7], "an old view still names its hosts")
	h.roll()
	assert.Equal(t, []string{"new"}, h.view(), "a table that is not full goes on")
}

// A host longer than MaxHostLen has no index: its row is refused, and the
// /live chunk of the rows taken is copied, with the right hosts.
func TestALongHostIsNotIndexedAndItsBatchIsCopied(t *testing.T) {
	a := newTestAggregator(t, Config{Logger: quietLogger, MaxHostLen: 8})
	long := strings.Repeat("x", 9)
	ms := t0.Add(time.Second).UnixMilli()
	dec := decoder{maxLen: a.cfg.MaxHostLen}
	decode := func(evs ...*eventsv1.Event) (*schema.Batch, *owned) {
		t.Helper()
		data, err := eventsv1.AppendEvents(nil, evs)
		require.NoError(t, err)
		b := schema.NewBatch(Schema, 4)
		var own owned
		own.ids, _, err = dec.decode(data, b, nil)
		require.NoError(t, err)
		own.names, own.indexed = dec.names.view(), dec.indexed
		return b, &own
	}
	b, own := decode(
		&eventsv1.Event{TimeMs: ms, Cpu: 0.5, Requests: 1, Host: "a"},
		&eventsv1.Event{TimeMs: ms, Cpu: 0.6, Requests: 2, Host: long},
		&eventsv1.Event{TimeMs: ms, Cpu: 0.7, Requests: 3, Host: "b"},
	)
	assert.False(t, own.indexed)
	assert.Equal(t, []uint32{0, noName, 1}, own.ids)
	assert.Equal(t, []string{"a", long, "b"}, b.Cols[2].Str)

	require.NoError(t, a.push(b, time.Now(), own))
	chunks := a.raw.all()
	require.Len(t, chunks, 1)
	assert.Equal(t, []string{"a", "b"}, chunkHosts(chunks[0]))
	assert.NotSame(t, &b.Time[0], &chunks[0].times[0], "copied")

	// The next batch, all short, is indexed again and kept whole.
	b2, own2 := decode(&eventsv1.Event{TimeMs: ms + 1, Cpu: 0.5, Requests: 1, Host: "b"})
	assert.True(t, own2.indexed)
	require.NoError(t, a.push(b2, time.Now(), own2))
	chunks = a.raw.all()
	require.Len(t, chunks, 2)
	assert.Equal(t, []string{"b"}, chunkHosts(chunks[1]))
	assert.Same(t, &b2.Time[0], &chunks[1].times[0], "kept whole")
}

// BenchmarkDecodeKept decodes 1000-row batches as the reader does and
// keeps the last 4000 of them, as the /live window keeps its chunks (4
// million rows, the default LiveSnapshotRows), so that the collector's
// work on what is kept is in the time. hosts=indexed is the reader: a
// host as an index, the host column handed back for the next batch;
// hosts=strings keeps each batch's host column as strings, as chunks did
// before, for comparison.
func BenchmarkDecodeKept(b *testing.B) {
	var evs []*eventsv1.Event
	for h := range 1000 {
		evs = append(evs, &eventsv1.Event{TimeMs: 1735689600000, Cpu: 0.5 + float64(h)/1e4, Requests: 70 + int64(h%61), Host: fmt.Sprintf("host-%04d", h)})
	}
	data, err := eventsv1.AppendEvents(nil, evs)
	require.NoError(b, err)
	for _, mode := range []string{"indexed", "strings"} {
		b.Run("hosts="+mode, func(b *testing.B) {
			const kept = 4000
			type chunk struct {
				nums [3]any
				host any
			}
			ring := make([]chunk, kept)
			dec := decoder{maxLen: 256}
			spare := make([]string, 0, 1000)
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				bt := &schema.Batch{
					Time: make([]int64, 0, 1000),
					Cols: []schema.Vec{{Num: make([]float64, 0, 1000)}, {Num: make([]float64, 0, 1000)}, {}},
				}
				if mode == "indexed" {
					bt.Cols[2].Str = spare
				} else {
					bt.Cols[2].Str = make([]string, 0, 1000)
				}
				ids, _, err := dec.decode(data, bt, make([]uint32, 0, 1000))
				if err != nil {
					b.Fatal(err)
				}
				c := chunk{nums: [3]any{bt.Time, bt.Cols[0].Num, bt.Cols[1].Num}, host: ids}
				if mode == "strings" {
					c.host = bt.Cols[2].Str
				}
				ring[i%kept] = c
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(evs)), "ns/row")
		})
	}
}

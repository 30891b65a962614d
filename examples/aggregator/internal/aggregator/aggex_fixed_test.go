package aggregator_test

import (
	"log/slog"
	"math"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/pond-go/pond/examples/aggregator/internal/aggregator"
	"github.com/pond-go/pond/examples/aggregator/internal/eventsv1"
	"github.com/pond-go/pond/examples/internal/wire"
	"github.com/pond-go/pond/live"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAgxAReorderedRowStaysInTheLiveSnapshot: README "Frames": the /live
// snapshot is "the raw window, in the order rows were taken", and
// "Guarantees": every batch reaches a client once, in its snapshot or as
// an append after it. Under -ordering reorder a batch may end with a late
// row: [a@100s, b@75s] (75 s is within the 30 s grace), then [a@106s].
// The window (30 s) holds a@100s and a@106s (Stats says 2 rows), but a
// client connecting then gets only a@106s: the row a@100s is in neither
// its snapshot nor any append.
//
// The cause (fixed): rawRing.add (rawring.go:100-103) evicts a chunk by its
// last row's time (old.times[len-1] < cut), which under reorder is not
// its latest: the chunk [100s, 75s] goes as a whole once 75 s leaves the
// window, its 100 s row with it.
func TestAgxAReorderedRowStaysInTheLiveSnapshot(t *testing.T) {
	a := agxNew(t, aggregator.Config{Ordering: live.Reorder, Grace: 30 * time.Second})
	ws, _ := agxServe(t, a)
	s := int64(time.Second)
	require.NoError(t, a.Push(agxBatch([]agxRow{{agxT0 + 100*s, 0.5, 1, "a"}, {agxT0 + 75*s, 0.5, 1, "b"}}), time.Now()))
	require.NoError(t, a.Push(agxBatch([]agxRow{{agxT0 + 106*s, 0.5, 1, "a"}}), time.Now()))
	require.EqualValues(t, 2, a.Stats().Series.Length, "the window holds a@100s and a@106s")

	c := agxDial(t, ws+"/live")
	snap := c.next()
	require.Equal(t, wire.TypeSnapshot, snap.f.Type)
	ms := agxT0 / int64(time.Millisecond)
	assert.Equal(t, []wire.RawRow{
		{TimeMs: ms + 100_000, CPU: 0.5, Requests: 1, Host: "a"},
		{TimeMs: ms + 106_000, CPU: 0.5, Requests: 1, Host: "a"},
	}, snap.f.RawRows, "the snapshot is the raw window")
}

// TestAgxBadTimeRefusalsAreLoggedAtMostOncePerSecond: README
// "Guarantees": bad rows (a time_ms outside ±2^62 ns among them) are
// "refused, counted and logged", and "the log says it at most once a
// second". A producer sending 50 batches that each hold one such row gets
// 50 warnings "rows refused: time_ms out of range", one per batch, where
// every other refusal (and a malformed batch) is logged at most once a
// second.
//
// The cause (fixed): ingest.go:104 logs d.bad with cfg.Logger.Warn
// directly instead of through logRefusal.
func TestAgxBadTimeRefusalsAreLoggedAtMostOncePerSecond(t *testing.T) {
	p, addr, _ := agxStartProducer(t)
	now := time.Now()
	var logs agxSyncBuffer
	a := agxNew(t, aggregator.Config{ProducerAddr: addr, Now: func() time.Time { return now },
		Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	ws, _ := agxServe(t, a)
	raw := agxDial(t, ws+"/live")
	raw.next()
	agxRun(t, a)
	ms := now.Add(-10 * time.Second).UnixMilli()
	const batches = 50
	for i := range batches {
		p.msgs <- agxEncode(t,
			&eventsv1.Event{TimeMs: ms + int64(i), Cpu: 0.5, Requests: 1, Host: "a"},
			&eventsv1.Event{TimeMs: math.MaxInt64, Cpu: 0.5, Requests: 1, Host: "a"},
		)
	}
	for range batches {
		require.Len(t, raw.next().f.RawRows, 1)
	}
	require.EqualValues(t, batches, a.Stats().Refused.BadTime)
	assert.LessOrEqual(t, strings.Count(logs.String(), "time_ms out of range"), 2,
		"50 batches within a second: the refusals are logged at most once a second")
}

// TestAgxABatchOfOnlyBadTimesIsABatchDoneSample: README "Endpoints":
// "batchDoneMs is one sample per gRPC batch with rows (taken or refused;
// not an empty or malformed one)". A batch whose every row has a time_ms
// out of range has rows, all refused, yet leaves no sample: after one
// good batch and one such batch, batchDoneMs.count is 1, not 2. (A batch
// whose rows are all refused as future, non-finite or too long is a
// sample, TestEveryBatchIsABatchDoneSample.)
//
// The cause (fixed): the reader leaves those rows out while decoding
// (ingest.go:223-225), so push gets an empty batch and returns before
// its deferred batchDone (aggregator.go:310 against 317).
func TestAgxABatchOfOnlyBadTimesIsABatchDoneSample(t *testing.T) {
	p, addr, _ := agxStartProducer(t)
	now := time.Now()
	a := agxNew(t, aggregator.Config{ProducerAddr: addr, Now: func() time.Time { return now }})
	ws, _ := agxServe(t, a)
	raw := agxDial(t, ws+"/live")
	raw.next()
	agxRun(t, a)
	ms := now.Add(-10 * time.Second).UnixMilli()
	p.msgs <- agxEncode(t, &eventsv1.Event{TimeMs: math.MaxInt64, Cpu: 0.5, Requests: 1, Host: "a"})
	p.msgs <- agxEncode(t, &eventsv1.Event{TimeMs: ms, Cpu: 0.5, Requests: 1, Host: "a"})
	raw.next() // the good batch, handled after the bad one
	require.EqualValues(t, 1, a.Stats().Refused.BadTime)
	lat := a.Metrics().Latency.BatchDoneMs
	require.NotNil(t, lat)
	assert.Equal(t, 2, lat.Count, "one sample per batch with rows, taken or refused")
}

// TestAgxEachTickCarriesItsOwnEventsPerSec: README "Frames": each
// aggregate-append is one 200 ms tick with its globals; events_per_sec is
// the rows of the last second (the unpartitioned 1s rolling on the same
// clock, docs/workload.md). A batch whose rows cross two boundaries, one
// host at 0, 100, 250, 260 and 450 ms, emits the ticks at 200 ms (the row
// at 250 ms crosses; the last second holds 3 rows) and at 400 ms (the row
// at 450 ms; 5 rows). Both ticks say events_per_sec 5: the tick at 200 ms
// carries the count of the tick after it.
//
// The cause (fixed): push (aggregator.go:355-357) keeps only the last row of
// the per-second rolling's output and every tick of the push reads it,
// instead of matching each tick to the per-second row of its own
// boundary. (events_ingested_total and the other totals are read after
// the push too, which TestTickRowsAreHandComputed pins for one tick; the
// README does not say which moment a tick's totals describe.)
func TestAgxEachTickCarriesItsOwnEventsPerSec(t *testing.T) {
	a := agxNew(t, aggregator.Config{})
	ws, _ := agxServe(t, a)
	c := agxDial(t, ws+"/live-agg")
	c.next()
	ms := int64(time.Millisecond)
	var rows []agxRow
	for _, at := range []int64{0, 100, 250, 260, 450} {
		rows = append(rows, agxRow{agxT0 + at*ms, 0.5, 1, "a"})
	}
	require.NoError(t, a.Push(agxBatch(rows), time.Now()))
	first, second := c.next(), c.next()
	require.Equal(t, agxT0/ms+200, first.f.Globals[0].TS)
	require.Equal(t, agxT0/ms+400, second.f.Globals[0].TS)
	assert.EqualValues(t, 5, second.f.Globals[0].EventsPerSec)
	assert.EqualValues(t, 3, first.f.Globals[0].EventsPerSec, "the tick at 200 ms: rows at 0, 100 and 250 ms")
}

// TestAgxAnNThatIsNotANumberIsRefusedOnConnect: README "Frames", Top-N:
// "any other by, or an n that is not a number, is a 400 on connect".
// /live-agg?n=NaN passes the check (strconv.ParseFloat reads "NaN"; a
// plain GET then gets 426, the WebSocket upgrade, where ?n=abc gets 400)
// and, on a WebSocket, silently turns the cut off, as if n had not been
// given.
//
// The cause (fixed): ServeLiveAgg (client.go:191-197) takes whatever
// ParseFloat takes, and clampTopN maps NaN to 0 (no cut).
func TestAgxAnNThatIsNotANumberIsRefusedOnConnect(t *testing.T) {
	a := agxNew(t, aggregator.Config{})
	_, base := agxServe(t, a)
	for _, n := range []string{"NaN", "nan"} {
		resp, err := http.Get(base + "/live-agg?n=" + n)
		require.NoError(t, err)
		resp.Body.Close()
		assert.Equal(t, http.StatusBadRequest, resp.StatusCode, "n=%s", n)
	}
}

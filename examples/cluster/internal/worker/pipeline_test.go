package worker

import (
	"math"
	"strconv"
	"testing"
	"time"

	"github.com/pond-go/pond/benchmarks"
	"github.com/pond-go/pond/examples/cluster/internal/events"
	"github.com/pond-go/pond/examples/cluster/internal/rows"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPipelineEmitsOneRowPerHostAndBoundary(t *testing.T) {
	st, err := events.NewStream(3, 10, benchmarks.T0.UnixMilli(), 42)
	require.NoError(t, err)
	p, err := NewPipeline()
	require.NoError(t, err)
	var out []rows.Row
	for k := range int64(30) {
		for _, e := range st.Tick(nil, k) {
			p.Add(e.TimeMs, e.CPU, e.Requests, e.Host)
		}
		out, err = p.Flush(out)
		require.NoError(t, err)
	}
	seen := map[rows.Key]bool{}
	for _, r := range out {
		require.False(t, seen[r.Key()], "duplicate %v", r.Key())
		seen[r.Key()] = true
		t.Logf("%d %s n=%d samples=%v", r.BoundaryMs-benchmarks.T0.UnixMilli(), r.Host, r.CPUN, r.CPUSamples)
	}
}

// TestHostNamesAreBounded: hosts that come and go, three times as many
// as the table of names holds, leave it no larger than maxNames.
func TestHostNamesAreBounded(t *testing.T) {
	p, err := NewPipeline()
	require.NoError(t, err)
	t0 := benchmarks.T0.UnixMilli()
	var out []rows.Row
	for i := range 3 * maxNames {
		p.AddKey(t0+int64(i/1000), 0.5, 1, []byte("host-"+strconv.Itoa(i)))
		if i%1000 == 999 {
			out, err = p.Flush(out[:0])
			require.NoError(t, err)
		}
		require.LessOrEqual(t, len(p.names), maxNames)
	}
}

// TestPipelineDropsOnlyTheBadEvents: an event whose value is not a
// finite number, older than the latest (a producer's timestamps may go
// back), or whose timestamp the series cannot hold (after 2116, or so far
// out that it overflows nanoseconds) is left out and counted, and the
// events of its push are not: the rows are those of the same stream
// without the bad events. (An event timestamped in 2200 used to fail its
// whole push, and every event of its fetch was lost.)
func TestPipelineDropsOnlyTheBadEvents(t *testing.T) {
	st, err := events.NewStream(3, 10, benchmarks.T0.UnixMilli(), 42)
	require.NoError(t, err)
	clean, err := NewPipeline()
	require.NoError(t, err)
	dirty, err := NewPipeline()
	require.NoError(t, err)
	var want, got []rows.Row
	for k := range int64(40) {
		es := st.Tick(nil, k)
		for i, e := range es {
			clean.Add(e.TimeMs, e.CPU, e.Requests, e.Host)
			dirty.Add(e.TimeMs, e.CPU, e.Requests, e.Host)
			if i == 1 {
				switch k % 6 {
				case 1:
					dirty.Add(e.TimeMs, math.Inf(1), e.Requests, e.Host)
				case 2:
					dirty.Add(e.TimeMs, e.CPU, math.NaN(), e.Host)
				case 3:
					dirty.Add(e.TimeMs-500, e.CPU, e.Requests, e.Host) // late
				case 4:
					dirty.Add(time.Date(2200, 1, 1, 0, 0, 0, 0, time.UTC).UnixMilli(), e.CPU, e.Requests, e.Host)
				case 5:
					dirty.Add(math.MinInt64/3, e.CPU, e.Requests, e.Host) // ×10^6 overflows
				}
			}
		}
		want, err = clean.Flush(want)
		require.NoError(t, err)
		got, err = dirty.Flush(got)
		require.NoError(t, err, "tick %d", k)
	}
	require.NotEmpty(t, want)
	require.Equal(t, len(want), len(got))
	for i := range want {
		require.Equal(t, string(want[i].AppendJSON(nil)), string(got[i].AppendJSON(nil)), "row %d", i)
	}
	assert.Equal(t, uint64(7+7+7+6+6), dirty.Dropped(), "one in each tick k with k%6 ≠ 0")
	assert.Zero(t, clean.Dropped())
}

// TestABurstOfOneHostMakesARowThatFitsARecord: 60,000 events of one host
// in one 200 ms slice give a row of rows.MaxSamples samples, the first
// ones, that says how many it left out, and whose JSON fits a Kafka
// record (1 MB by default). (It carried all 60,000, 1.2 MB: every
// transaction holding it aborted and the partition retried for ever.)
func TestABurstOfOneHostMakesARowThatFitsARecord(t *testing.T) {
	const burst = 60000
	p, err := NewPipeline()
	require.NoError(t, err)
	t0 := benchmarks.T0.UnixMilli()
	for i := range burst {
		p.Add(t0+int64(i)*200/burst, -0.123456789012345678-float64(i)*1e-9, 1, "host-0000")
	}
	p.Add(t0+200, 0.5, 1, "host-0000") // closes the slice [t0, t0+200)
	out, err := p.Flush(nil)
	require.NoError(t, err)
	require.Len(t, out, 1)
	r := out[0]
	assert.EqualValues(t, burst, r.CPUN)
	require.Len(t, r.CPUSamples, rows.MaxSamples)
	assert.EqualValues(t, burst-rows.MaxSamples, r.CPUSamplesLeftOut)
	assert.Equal(t, -0.123456789012345678, r.CPUSamples[0], "the first samples are kept")
	assert.Less(t, len(r.AppendJSON(nil)), 1<<20)
}

// TestAFloodOfNewHostsIsBounded: past its bound on hosts a pipeline
// refuses the events of new hosts and counts them (Dropped), and the
// hosts it tracks keep every row they had without the flood; once they
// have been quiet for a window their places go to new hosts. (The series
// grew with every distinct key for a minute of event time.)
func TestAFloodOfNewHostsIsBounded(t *testing.T) {
	st, err := events.NewStream(3, 10, benchmarks.T0.UnixMilli(), 42)
	require.NoError(t, err)
	limited, err := NewPipelineWith(5)
	require.NoError(t, err)
	plain, err := NewPipeline()
	require.NoError(t, err)
	var got, want []rows.Row
	flood := 0
	for k := range int64(40) {
		for _, e := range st.Tick(nil, k) {
			limited.Add(e.TimeMs, e.CPU, e.Requests, e.Host)
			plain.Add(e.TimeMs, e.CPU, e.Requests, e.Host)
		}
		if k >= 10 && k < 20 {
			// 100 new hosts a tick (of 100 ms), each once.
			for range 100 {
				limited.Add(st.Time(k).UnixMilli(), 0.5, 1, "flood-"+strconv.Itoa(flood))
				flood++
			}
		}
		got, err = limited.Flush(got)
		require.NoError(t, err)
		want, err = plain.Flush(want)
		require.NoError(t, err)
		parts, err := limited.s.Partitions(limited.byHost)
		require.NoError(t, err)
		require.LessOrEqual(t, len(parts), 5, "tick %d", k)
	}
	// Two flood hosts fit beside the three; the rest were refused.
	assert.EqualValues(t, flood-2, limited.Dropped())
	var known []rows.Row
	floodRows := map[string]bool{}
	for _, r := range got {
		if len(r.Host) > 6 && r.Host[:6] == "flood-" {
			floodRows[r.Host] = true
			continue
		}
		known = append(known, r)
	}
	assert.Equal(t, map[string]bool{"flood-0": true, "flood-1": true}, floodRows, "the hosts admitted")
	require.Equal(t, len(want), len(known))
	for i := range want {
		assert.Equal(t, string(want[i].AppendJSON(nil)), string(known[i].AppendJSON(nil)), "row %d", i)
	}

	// A window and a second after every host has gone quiet, their
	// places are free again.
	late := st.Time(39).Add(LongestWindow + time.Second).UnixMilli()
	for h := range 2 {
		limited.Add(late, 0.5, 1, "later-"+strconv.Itoa(h))
	}
	_, err = limited.Flush(nil)
	require.NoError(t, err)
	assert.EqualValues(t, flood-2, limited.Dropped(), "the later hosts taken")
}

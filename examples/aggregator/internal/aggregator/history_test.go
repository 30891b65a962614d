package aggregator

import (
	"testing"

	"github.com/pond-go/pond/examples/aggregator/internal/wire"
	"github.com/stretchr/testify/assert"
)

func tickAt(ts int64, hosts int) *tick {
	return &tick{rows: make([]wire.HostTick, hosts), globals: wire.GlobalsTick{TS: ts}}
}

func times(h *history) []int64 {
	var out []int64
	for _, t := range h.all() {
		out = append(out, t.globals.TS)
	}
	return out
}

func TestHistoryKeepsTheLastFiveMinutes(t *testing.T) {
	h := history{maxAgeMs: 1000}
	for ts := int64(0); ts <= 1400; ts += 200 {
		h.add(tickAt(ts, 2))
	}
	assert.Equal(t, []int64{400, 600, 800, 1000, 1200, 1400}, times(&h), "ts ≥ now − max age stay")
	assert.Equal(t, 12, h.rows)
}

func TestHistoryIsCappedByRowsButKeepsTheNewestTick(t *testing.T) {
	h := history{maxAgeMs: 1 << 40, maxRows: 5}
	h.add(tickAt(1, 2))
	h.add(tickAt(2, 2))
	h.add(tickAt(3, 2))
	assert.Equal(t, []int64{2, 3}, times(&h))
	h.add(tickAt(4, 9))
	assert.Equal(t, []int64{4}, times(&h), "a tick larger than the cap still stays")
}

func TestHistoryCompactsItsDeadPrefix(t *testing.T) {
	h := history{maxAgeMs: 10}
	for ts := range int64(1000) {
		h.add(tickAt(ts, 1))
	}
	assert.Len(t, h.all(), 11)
	assert.Less(t, len(h.ticks), 200, "the slice does not grow without bound")
}

func TestHistoryOff(t *testing.T) {
	h := history{maxAgeMs: -1}
	h.add(tickAt(1, 1))
	assert.Empty(t, h.all())
}

package aggregator

import "github.com/pond-go/pond/examples/aggregator/internal/wire"

// tick is one emitted 200 ms tick: every host's row and the globals.
type tick struct {
	rows    []wire.HostTick
	globals wire.GlobalsTick
}

// history keeps the emitted ticks of the last maxAgeMs (and at most
// maxRows host rows), oldest first, so a new client's charts start full.
// Ticks are appended at the end and evicted from a head index; the slice
// is compacted when the dead prefix outgrows the live part.
type history struct {
	maxAgeMs int64
	maxRows  int
	ticks    []tick
	head     int
	rows     int
}

// add appends a tick, then evicts the ticks older than its time minus the
// maximum age, and the oldest while there are more rows than allowed (the
// newest tick always stays).
func (h *history) add(t tick) {
	if h.maxAgeMs <= 0 {
		return
	}
	h.ticks = append(h.ticks, t)
	h.rows += len(t.rows)
	cut := t.globals.TS - h.maxAgeMs
	for h.head < len(h.ticks)-1 {
		old := &h.ticks[h.head]
		if old.globals.TS >= cut && (h.maxRows <= 0 || h.rows <= h.maxRows) {
			break
		}
		h.rows -= len(old.rows)
		*old = tick{}
		h.head++
	}
	if h.head > 64 && h.head*2 > len(h.ticks) {
		n := copy(h.ticks, h.ticks[h.head:])
		clear(h.ticks[n:])
		h.ticks = h.ticks[:n]
		h.head = 0
	}
}

// all returns the ticks held, oldest first. The slice is the history's
// own.
func (h *history) all() []tick { return h.ticks[h.head:] }

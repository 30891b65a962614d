package aggregator

import (
	"sync"

	"github.com/pond-go/pond/examples/aggregator/internal/wire"
)

// tick is one emitted 200 ms tick: every host's row and the globals. A
// tick is immutable once built, so client writers read it without the
// aggregator's lock.
type tick struct {
	rows    []wire.HostTick
	globals wire.GlobalsTick

	once sync.Once
	enc  []byte // rows encoded as comma-separated HostTick objects

	orderOnce [3]sync.Once
	order     [3][]int32 // rank order of the rows, per rank key
}

// rankOrder returns the rows' rank order by key k, sorted once and shared
// by every client that cuts by k: a client's snapshot then costs a walk of
// its top N per tick, not a sort of every host.
func (t *tick) rankOrder(k RankKey) []int32 {
	i := k.rankIndex()
	t.orderOnce[i].Do(func() { t.order[i] = rankOrder(t.rows, k) })
	return t.order[i]
}

// encodedRows returns the tick's rows as JSON objects separated by commas,
// encoded once and shared by every client that takes all hosts.
func (t *tick) encodedRows() []byte {
	t.once.Do(func() {
		b := make([]byte, 0, 400*len(t.rows))
		for i := range t.rows {
			if i > 0 {
				b = append(b, ',')
			}
			b = wire.AppendHostTick(b, &t.rows[i])
		}
		t.enc = b
	})
	return t.enc
}

// history keeps the emitted ticks of the last maxAgeMs (and at most
// maxRows host rows), oldest first, so a new client's charts start full.
//
// It is copy-on-write for readers: [history.all] returns a slice that stays
// valid and unchanged after the lock is released. Ticks are appended past
// the end of every slice handed out, eviction only moves the head, and
// compaction copies into a new array instead of moving ticks in place.
type history struct {
	maxAgeMs int64
	maxRows  int
	ticks    []*tick
	head     int
	rows     int
}

// add appends a tick, then evicts the ticks older than its time minus the
// maximum age, and the oldest while there are more rows than allowed (the
// newest tick always stays).
func (h *history) add(t *tick) {
	if h.maxAgeMs <= 0 {
		return
	}
	h.ticks = append(h.ticks, t)
	h.rows += len(t.rows)
	cut := t.globals.TS - h.maxAgeMs
	for h.head < len(h.ticks)-1 {
		old := h.ticks[h.head]
		if old.globals.TS >= cut && (h.maxRows <= 0 || h.rows <= h.maxRows) {
			break
		}
		h.rows -= len(old.rows)
		h.head++
	}
	if h.head > 64 && h.head*2 > len(h.ticks) {
		live := h.ticks[h.head:]
		h.ticks = append(make([]*tick, 0, 2*len(live)+64), live...)
		h.head = 0
	}
}

// all returns the ticks held, oldest first. The caller may keep and read
// the slice after releasing the lock; it must not modify it.
func (h *history) all() []*tick { return h.ticks[h.head:len(h.ticks):len(h.ticks)] }

package engine

import (
	"testing"
)

// FuzzDequeGrowth drives one deque with rows whose times the input
// chooses (steady, bursts, gaps, out of order), drops from its front now
// and then, under a pool that foresees its peak over a span or a count
// (or not) and may have rows handed over (ahead). After every step the
// deque holds exactly the rows pushed and not dropped, in order, its
// blocks agree with its ring, and a push that grew the ring left no more
// room than the rows it holds (the first classes aside; up to a full
// block once rows are handed over, as cutRows allows). Every block goes
// back to the pool when it is released.
func FuzzDequeGrowth(f *testing.F) {
	f.Add(uint8(0), uint8(0), []byte{1, 1, 1, 1, 1, 1, 1, 1})
	f.Add(uint8(6), uint8(0), []byte{0, 0, 0, 0, 200, 7, 7, 7, 7, 0x80, 9, 9})
	f.Add(uint8(9), uint8(3), []byte{2, 2, 2, 2, 2, 0xc0, 2, 2, 0x90, 50, 1})
	f.Add(uint8(12), uint8(1), []byte{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 255, 255, 1})
	f.Fuzz(dequeGrowthCase)
}

// dequeGrowthCase is FuzzDequeGrowth's check of one input.
func dequeGrowthCase(t *testing.T, spanLog, aheadLog uint8, ops []byte) {
	p := testPool()
	if spanLog%16 != 0 {
		p.span = 1 << (spanLog % 16) * 100
	}
	if spanLog&0x80 != 0 { // a count window instead
		p.span, p.count = 0, 16+int(spanLog&0x7f)*50
	}
	if aheadLog%4 != 0 {
		p.ahead = int64(aheadLog%4) * 200
	}
	d := deque{stride: testStride}
	var at int64
	var vals []int64 // the times of rows front … tail−1
	// Enough rows and drops for any ring's growth and shrinking; more
	// only slow the fuzzer (each shrink rotates the ring).
	ops = ops[:min(len(ops), 256)]
	pushed := 0
	for k, op := range ops {
		if pushed > 1<<16 {
			break
		}
		switch {
		case op&0xc0 == 0xc0: // drop a share of the rows held
			n := uint64(len(vals)) * uint64(op&0x3f) / 63
			d.dropTo(d.front+n, p)
			vals = vals[n:]
		case op&0xc0 == 0x80: // a row out of order
			at -= int64(op & 0x3f)
			fallthrough
		default: // a run of rows, op&0x3f apart (a burst at 0)
			reps := 1
			if op&0xc0 == 0 {
				reps = 1 + int(op>>3)%8*(1+k%64)
			}
			for range reps {
				pushed++
				at += int64(op & 7)
				held, room := d.len(), d.cap
				r := d.push(p)
				r[0], r[1], r[2] = uint64(at), uint64(at)^0x5555, uint64(len(vals))
				vals = append(vals, at)
				if d.cap > room {
					limit := max(uint64(held), 64)
					if p.ahead > 0 {
						limit = max(limit, blockRows)
					}
					if d.cap-uint64(d.len()) > limit {
						t.Fatalf("grew from %d to %d rows of room holding %d", room, d.cap, d.len())
					}
				}
			}
		}
		if d.len() != len(vals) {
			t.Fatalf("holds %d rows, want %d", d.len(), len(vals))
		}
	}
	requireBlocks(t, &d)
	for i, a := 0, d.front; a < d.tail; i, a = i+1, a+1 {
		r := d.row(a)
		if int64(r[0]) != vals[i] || r[1] != uint64(vals[i])^0x5555 || d.time(a) != vals[i] {
			t.Fatalf("row %d: %v, want time %d", a, r, vals[i])
		}
	}
	d.release(p)
	for c, n := range p.inUse {
		if n != 0 {
			t.Fatalf("class %d: %d blocks not given back", c, n)
		}
	}
}

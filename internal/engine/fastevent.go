package engine

import (
	"math"
	"unsafe"

	"github.com/pond-go/pond/internal/reducers"
	"github.com/pond-go/pond/internal/table"
	"github.com/pond-go/pond/schema"
)

// The event trigger's batch path. When every output of a plan is a
// count, sum, avg or stdev (the common rolling average), a push's rows
// are taken in column passes instead of row by row: append the rows, find
// each window's head after each row, then run each Moments over the whole
// batch with its sums in registers ([reducers.Moments.Slide]) and write each
// output column in one piece. The results are those of the row-by-row
// path.

// fastEvent reports whether the plan qualifies for the batch path.
func (p *Plan) fastEvent() bool {
	if p.hasArr {
		return false
	}
	for _, o := range p.outs {
		switch o.state {
		case stMoments, stCount, stRows:
		default:
			return false
		}
	}
	return true
}

// eventScratch holds the batch path's buffers, reused from push to push.
type eventScratch struct {
	remCount [][]int32   // per window: rows leaving as each row arrives
	winLen   [][]int32   // per window: rows in the window after each row
	results  [][]float64 // per output
	rems     []float64
	adds     []float64
}

func grow[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}

// pushEvents runs the batch path for every row of in.
func (s *Stream) pushEvents(in *Input, out *schema.Table) {
	e := s.e
	p := e.p
	n := len(in.times)
	sc := &s.scratch
	if len(sc.remCount) != len(p.wins) {
		sc.remCount = make([][]int32, len(p.wins))
		sc.winLen = make([][]int32, len(p.wins))
		sc.results = make([][]float64, len(p.outs))
	}
	base := e.dq.tail
	startMax, had := e.maxT, e.dq.has&dqMax != 0
	e.appendInput(in, 0, n)
	low := e.dq.tail
	wins := e.wins()
	for w := range wins {
		ws := &wins[w]
		wp := &p.wins[w]
		rc := grow(sc.remCount[w], n)
		wl := grow(sc.winLen[w], n)
		sc.remCount[w], sc.winLen[w] = rc, wl
		h := ws.head
		mt, has := startMax, had
		for i := range n {
			a := base + uint64(i)
			if t := in.times[i]; !has || t > mt {
				mt, has = t, true
			}
			k := int32(0)
			if wp.count > 0 {
				for a+1-h > uint64(wp.count) {
					h++
					k++
				}
			} else {
				lim := mt - wp.span
				for h < a && e.dq.time(h) < lim {
					h++
					k++
				}
			}
			rc[i] = k
			wl[i] = int32(a + 1 - h)
		}
		// Moments: gather the values leaving, then slide over the batch.
		for mi, slot := range wp.moments {
			m := &ws.moments(wp)[mi]
			sc.rems = e.gather(sc.rems[:0], ws.head, h, slot)
			adds := bitsAsFloats(in.enc[slot-1])
			var so reducers.SlideOut
			for j, o := range p.outs {
				if o.win != w || o.state != stMoments || o.idx != mi {
					continue
				}
				r := grow(sc.results[j], n)
				sc.results[j] = r
				switch o.op {
				case reducers.OpCount:
					so.Count = r
				case reducers.OpSum:
					so.Sum = r
				case reducers.OpAvg:
					so.Mean = r
				case reducers.OpStdev:
					so.Stdev = r
				}
			}
			m.Slide(adds, sc.rems, rc, so)
			// Outputs of the same op share one result slice.
			for j, o := range p.outs {
				if o.win == w && o.state == stMoments && o.idx == mi {
					switch o.op {
					case reducers.OpCount:
						sc.results[j] = so.Count
					case reducers.OpSum:
						sc.results[j] = so.Sum
					case reducers.OpAvg:
						sc.results[j] = so.Mean
					case reducers.OpStdev:
						sc.results[j] = so.Stdev
					}
				}
			}
		}
		// Plain counts.
		for ci, slot := range wp.counts {
			num := wp.countNum[ci]
			c := ws.counts(wp)[ci]
			r := e.countsByRow(sc, base, ws.head, rc, slot, num, &c, n)
			ws.counts(wp)[ci] = c
			for j, o := range p.outs {
				if o.win == w && o.state == stCount && o.idx == ci {
					sc.results[j] = append(grow(sc.results[j], 0), r...)
				}
			}
		}
		ws.moveHead(h, e.dq.tail)
		low = min(low, h)
	}
	// Write the outputs column by column.
	table.Column(out, 0).AppendTimes(in.times)
	for j, o := range p.outs {
		dst := table.Column(out, p.first+j)
		wl := sc.winLen[o.win]
		ms := p.wins[o.win].minSamples
		if o.state == stRows {
			for i := range n {
				if int(wl[i]) < ms {
					dst.AppendNum(math.NaN())
				} else {
					dst.AppendNum(float64(wl[i]))
				}
			}
			continue
		}
		r := sc.results[j]
		if ms > 0 {
			for i := range n {
				if int(wl[i]) < ms {
					r[i] = math.NaN()
				}
			}
		}
		dst.AppendNums(r)
	}
	e.dq.dropTo(low, &p.pool)
}

// countsByRow computes a plain count after each row of a batch starting at
// absolute row base: each row enters, then rc[i] rows leave from the
// window's front (from head on). It returns the counts (in a scratch
// slice) and leaves the final count in *c.
func (e *Engine) countsByRow(sc *eventScratch, base, head uint64, rc []int32, slot int, num bool, c *int, n int) []float64 {
	out := grow(sc.adds, n)
	sc.adds = out
	h := head
	for i := range n {
		if e.present(slot, e.dq.row(base + uint64(i))[slot]) {
			*c++
		}
		for range rc[i] {
			if e.present(slot, e.dq.row(h)[slot]) {
				*c--
			}
			h++
		}
		out[i] = float64(*c)
	}
	_ = num
	return out
}

// gather appends the values in slot of rows [from, to) to dst.
func (e *Engine) gather(dst []float64, from, to uint64, slot int) []float64 {
	st := int(e.dq.stride)
	e.runs(from, to, func(blk []uint64, base, n int, _ uint64) {
		for r := base; r < base+n*st; r += st {
			dst = append(dst, math.Float64frombits(blk[r+slot]))
		}
	})
	return dst
}

// bitsAsFloats views float64 bit patterns as float64s, without copying.
func bitsAsFloats(b []uint64) []float64 {
	if len(b) == 0 {
		return nil
	}
	return unsafe.Slice((*float64)(unsafe.Pointer(unsafe.SliceData(b))), len(b))
}

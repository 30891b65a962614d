package aligned

import (
	"math"
	"slices"
	"unsafe"

	"github.com/pond-go/pond/internal/reducers"
	"github.com/pond-go/pond/internal/table"
	"github.com/pond-go/pond/schema"
)

// rawRows is the raw rows a window keeps for its holistic outputs, in
// arrival order: per row only the encoded slots those outputs read
// (stride words), and, beside them, runs of consecutive rows in one pane.
// A window is a union of whole panes, so a run's pane index tells whether
// its rows are in the window at a boundary: a row needs no time of its
// own unless a raw first or last orders by it (then times holds them).
// Under strict or drop ordering the rows of one pane are one run.
type rawRows struct {
	vals   []uint64 // stride words a row
	runs   []rawRun
	head   int // first run held
	row0   int // first row held: the head run's first
	stride int
	times  bool
	ts     []int64        // each row's time, when times
	arrs   []schema.Value // arrays at the positions of vals, when a slot is an array column
}

// rawRun is n consecutive rows in pane k.
type rawRun struct {
	k int64
	n int
}

func (rr *rawRows) clear() {
	rr.vals, rr.ts, rr.runs, rr.head, rr.row0 = rr.vals[:0], rr.ts[:0], rr.runs[:0], 0, 0
	clear(rr.arrs)
	rr.arrs = rr.arrs[:0]
}

// rows returns the number of rows in vals, held or not.
func (rr *rawRows) rows() int {
	if rr.stride == 0 {
		return 0
	}
	return len(rr.vals) / rr.stride
}

// addRun records n more rows in pane k.
func (rr *rawRows) addRun(k int64, n int) {
	if m := len(rr.runs); m > rr.head && rr.runs[m-1].k == k {
		rr.runs[m-1].n += n
		return
	}
	rr.runs = append(rr.runs, rawRun{k: k, n: n})
}

// pushRun appends rows [from, to) of in, all in pane k (a plan without
// array columns).
func (rr *rawRows) pushRun(wp *winPlan, in inRows, from, to int, k int64) {
	n, st := to-from, len(wp.rawSlots)
	at := len(rr.vals)
	rr.vals = slices.Grow(rr.vals, n*st)[:at+n*st]
	vals, rows := rr.vals[at:], in.rows(from, to)
	if st == 1 {
		// One slot (a samples or a median of one column): a strided copy.
		for i, j := 0, wp.rawSlots[0]; i < n; i, j = i+1, j+in.w {
			vals[i] = rows[j]
		}
	} else {
		for i := range n {
			for c, s := range wp.rawSlots {
				vals[i*st+c] = rows[i*in.w+s]
			}
		}
	}
	if rr.times {
		for i := from; i < to; i++ {
			rr.ts = append(rr.ts, in.time(i))
		}
	}
	rr.addRun(k, n)
}

// push appends row i of in, at time t in pane k.
func (rr *rawRows) push(wp *winPlan, in *Rows, i int, t, k int64) {
	for _, s := range wp.rawSlots {
		rr.vals = append(rr.vals, in.Enc[s-1][i])
	}
	if rr.times {
		rr.ts = append(rr.ts, t)
	}
	if wp.rawArr {
		// Arrays beside the encoded row, at the same positions.
		for _, s := range wp.rawSlots {
			v := schema.Value{}
			if s-1 < len(in.Arrs) && in.Arrs[s-1] != nil && !in.Arrs[s-1].IsMissing(i) {
				// A copy: the input's cells are reused by the next push.
				a, _ := in.Arrs[s-1].Array(i)
				v = schema.ArrayValue(append([]schema.Value(nil), a...)...)
			}
			rr.arrs = append(rr.arrs, v)
		}
	}
	rr.addRun(k, 1)
}

// dropBefore forgets runs from the front, in arrival order, while their
// pane is before lo, and gives the buffers' front back once half of them
// is forgotten.
func (rr *rawRows) dropBefore(lo int64) {
	for rr.head < len(rr.runs) && rr.runs[rr.head].k < lo {
		rr.row0 += rr.runs[rr.head].n
		rr.head++
	}
	rows := rr.rows()
	if rr.head == len(rr.runs) {
		rr.clear()
		return
	}
	if rr.row0 >= 64 && rr.row0*2 >= rows || rr.head >= 64 && rr.head*2 >= len(rr.runs) {
		s := rr.stride
		n := copy(rr.vals, rr.vals[rr.row0*s:])
		rr.vals = rr.vals[:n]
		if rr.times {
			m := copy(rr.ts, rr.ts[rr.row0:])
			rr.ts = rr.ts[:m]
		}
		if rr.arrs != nil {
			m := copy(rr.arrs, rr.arrs[rr.row0*s:])
			clear(rr.arrs[m:])
			rr.arrs = rr.arrs[:m]
		}
		m := copy(rr.runs, rr.runs[rr.head:])
		rr.runs = rr.runs[:m]
		rr.head, rr.row0 = 0, 0
	}
}

// bytes returns the memory the raw rows hold.
func (rr *rawRows) bytes() int {
	return 8*(cap(rr.vals)+cap(rr.ts)) + int(unsafe.Sizeof(rawRun{}))*cap(rr.runs) + int(unsafe.Sizeof(schema.Value{}))*cap(rr.arrs)
}

// window returns the pane range [lo, hi) of window wp at boundary b.
func (p *Plan) window(wp *winPlan, b int64) (lo, hi int64) {
	hi = p.paneOf(b, wp.width)
	return hi - wp.spanPanes, hi
}

// emitRaw appends a holistic output: its state is filled from the raw
// rows in [b − span, b), in arrival order. samples of a scalar column is
// written straight from the rows.
func (p *Plan) emitRaw(wp *winPlan, ws *winState, i int, b int64, dst *table.Col) {
	rp := &wp.raws[i]
	switch op := rp.red.Op; {
	case op == reducers.OpSamples && rp.kind != schema.Array:
		p.emitSamples(wp, ws, rp, b, dst)
		return
	case op == reducers.OpFirst || op == reducers.OpLast:
		p.emitFirstLast(wp, ws, rp, b, dst, op == reducers.OpLast)
		return
	}
	st := ws.gen[i] // empty: each emission resets it after appending
	rr := &ws.raw
	lo, hi := p.window(wp, b)
	r := rr.row0
	for _, run := range rr.runs[rr.head:] {
		if run.k >= lo && run.k < hi {
			for j := r; j < r+run.n; j++ {
				at := j*rr.stride + rp.inRow
				st.Add(uint64(j), p.value(rp.kind, rr.vals[at], rr, at))
			}
		}
		r += run.n
	}
	st.Append(dst)
	st.Reset() // keeps nothing (no string) of the window's rows meanwhile
}

// emitFirstLast appends first or last of raw rows (arrays): the value at
// the earliest time in [b − span, b), ties to the earlier arrival, or at
// the latest, ties to the later arrival, as the panes' first and last do.
func (p *Plan) emitFirstLast(wp *winPlan, ws *winState, rp *rawPlan, b int64, dst *table.Col, last bool) {
	rr := &ws.raw
	lo, hi := p.window(wp, b)
	best, bestT := -1, int64(0)
	r := rr.row0
	for _, run := range rr.runs[rr.head:] {
		if run.k >= lo && run.k < hi {
			for j := r; j < r+run.n; j++ {
				t := rr.ts[j]
				if rr.vals[j*rr.stride+rp.inRow] == 0 {
					continue
				}
				if best < 0 || !last && t < bestT || last && t >= bestT {
					best, bestT = j*rr.stride+rp.inRow, t
				}
			}
		}
		r += run.n
	}
	if best < 0 {
		dst.AppendMissing()
		return
	}
	table.AppendValue(dst, p.value(rp.kind, rr.vals[best], rr, best))
}

// emitSamples appends the present values of a scalar slot in
// [b − span, b), in arrival order, as one array.
func (p *Plan) emitSamples(wp *winPlan, ws *winState, rp *rawPlan, b int64, dst *table.Col) {
	rr := &ws.raw
	lo, hi := p.window(wp, b)
	dst.BeginArray()
	r := rr.row0
	for _, run := range rr.runs[rr.head:] {
		if run.k >= lo && run.k < hi {
			vals := rr.vals[r*rr.stride : (r+run.n)*rr.stride]
			for j := rp.inRow; j < len(vals); j += rr.stride {
				bits := vals[j]
				switch rp.kind {
				case schema.Number:
					if x := math.Float64frombits(bits); x == x {
						dst.AppendNumElem(x)
					}
				default:
					if bits != 0 {
						dst.AppendElem(p.value(rp.kind, bits, rr, 0))
					}
				}
			}
		}
		r += run.n
	}
	dst.EndArray()
}

// value decodes an encoded slot of a raw row, at position at of vals.
func (p *Plan) value(kind schema.Kind, bits uint64, rr *rawRows, at int) schema.Value {
	switch kind {
	case schema.Number:
		if x := math.Float64frombits(bits); x == x {
			return schema.NumberValue(x)
		}
	case schema.String:
		if bits != 0 {
			return schema.StringValue(p.syms.Str(uint32(bits)))
		}
	case schema.Bool:
		if bits != 0 {
			return schema.BoolValue(bits == 2)
		}
	case schema.Array:
		if bits != 0 {
			return rr.arrs[at]
		}
	}
	return schema.Value{}
}

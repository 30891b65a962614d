package engine

import (
	"reflect"
	"strconv"
	"unsafe"

	"github.com/pond-go/pond/internal/reducers"
	"github.com/pond-go/pond/schema"
)

// arena hands out the state of a plan's engines from chunks, one record
// per engine: the Engine, then its windows' winStates, Moments,
// Extremes, counts and generic states, side by side (and, for a plan
// that reads array columns, the map of its rows' array cells). A tick
// at many partitions finds each partition's state in one run of cache
// lines (384 bytes for the seed's two windows: six lines), and walks
// the records of a chunk in address order, one stream; states kept in an
// arena per kind took four runs of lines a partition, in four streams,
// and an 8-byte chunk header in each kind's chunk put a 64-byte
// Moments across two lines.
//
// A record whose size is a whole number of cache lines starts on a line
// (see lineLead): the seed's is then six lines, not seven as it falls,
// and what a partition-tick at a row a second reads of it (see winState)
// its first four. Other records are packed; rounding them up to a line
// would cost bytes a partition.
//
// A record's layout depends on the plan (how many states of each kind
// its windows keep), so its type is made when the plan makes its first
// engine (reflect.StructOf): the chunks are typed memory, whose pointers
// the collector sees as it sees any struct's.
type arena struct {
	layout *recordLayout
	chunk  unsafe.Pointer // the current chunk's first record
	used   int            // records of the chunk handed out
	n      int            // records in the chunk
	step   int            // records in the last chunk of the sizes in turn (see chunkLen)
	// The records the last one was taken for wanted (see record), and
	// those the first of its run wanted.
	want, run int
	free      []*Engine
}

// recordLayout is where each kind of state lies in a plan's records, in
// bytes from the record's start, and how many of each it holds. The
// moments and the extremes of all windows lie side by side, and after
// them each window's counts then generic states (rest), so that a
// window finds its generic states from its counts.
type recordLayout struct {
	typ                 reflect.Type
	size                uintptr
	chunks              []chunkType // the chunk types made, by records
	wins, mom, ext, arr uintptr
	nWin, nMom, nExt    int
}

// arenaChunkBytes are the sizes of an arena's chunks, in turn, the last
// repeated: a plan of a few partitions takes a few small chunks, one of
// thousands mostly 32 KB ones. Each is a size class of the allocator,
// and a chunk holds as many records as fit in it less the 8-byte header
// the allocator adds to objects with pointers above 512 bytes.
var arenaChunkBytes = [...]int{1 << 10, 4 << 10, 16 << 10, 32 << 10}

// chunkLen returns the elements of size bytes in the chunk that follows
// one of had elements.
func chunkLen(size, had int) int {
	for _, b := range arenaChunkBytes {
		if n := (b - 8) / size; n > had {
			return n
		}
	}
	return max(1, (arenaChunkBytes[len(arenaChunkBytes)-1]-8)/size)
}

// fitChunkBytes are the sizes a chunk for the records still wanted may
// take (see arena.record), each a size class of the allocator: from
// 8 KB, as smaller ones hold fewer records for their header and lead
// (two of the seed's in 1 KB, ten in 4 KB: a sixteenth of it unused).
var fitChunkBytes = [...]int{8 << 10, 16 << 10, 32 << 10}

// fitLen returns the elements of size bytes in the smallest chunk of
// fitChunkBytes that holds want of them, and 0 when none does or want is
// not positive.
func fitLen(size, want int) int {
	if want <= 0 {
		return 0
	}
	for _, b := range fitChunkBytes {
		if n := (b - 8) / size; n >= want {
			return n
		}
	}
	return 0
}

// newLayout builds the record type of p's engines.
func newLayout(p *Plan) *recordLayout {
	l := &recordLayout{nWin: len(p.wins)}
	for _, wp := range p.wins {
		l.nMom += len(wp.moments)
		l.nExt += len(wp.mins) + len(wp.maxs)
	}
	// In the order a fold reads them; kinds a plan does not keep take
	// no field (a zero-length array last would add padding).
	fields := []reflect.StructField{{Name: "E", Type: reflect.TypeFor[Engine]()}}
	add := func(name string, n int, t reflect.Type) {
		if n > 0 {
			fields = append(fields, reflect.StructField{Name: name, Type: reflect.ArrayOf(n, t)})
		}
	}
	add("W", l.nWin, reflect.TypeFor[winState]())
	add("M", l.nMom, reflect.TypeFor[reducers.Moments]())
	add("X", l.nExt, reflect.TypeFor[reducers.Extreme]())
	for w, wp := range p.wins {
		add("C"+strconv.Itoa(w), len(wp.counts), reflect.TypeFor[int]())
		add("G"+strconv.Itoa(w), len(wp.generic), reflect.TypeFor[reducers.Window]())
	}
	if p.hasArr {
		// The array cells of the rows held (see Engine.arrs).
		fields = append(fields, reflect.StructField{Name: "A", Type: reflect.TypeFor[map[uint64][]schema.Value]()})
	}
	l.typ = reflect.StructOf(fields)
	l.size = l.typ.Size()
	off := func(name string) uintptr {
		f, ok := l.typ.FieldByName(name)
		if !ok {
			return 0
		}
		return f.Offset
	}
	l.wins, l.mom, l.ext, l.arr = off("W"), off("M"), off("X"), off("A")
	if unsafe.Sizeof(Engine{}) < unsafe.Sizeof(reducers.Moments{}) {
		panic("engine: a record's engine is smaller than a Moments (see winPlan.momOff)")
	}
	if l.wins != unsafe.Sizeof(Engine{}) {
		// Engine.wins finds the window states right after the engine.
		panic("engine: a record's window states do not follow its engine")
	}
	// Each window's extremes, and its counts then its generic states, at
	// the same offsets from its window state in every record: the window
	// plan keeps them.
	ext, mom := l.ext, l.mom
	for w := range p.wins {
		ws := l.wins + uintptr(w)*unsafe.Sizeof(winState{})
		if n := len(p.wins[w].moments); n > 0 {
			p.wins[w].momOff = int32(mom - ws)
			mom += uintptr(n) * unsafe.Sizeof(reducers.Moments{})
		} else {
			// No Moments: the offset takes a pointer made from it, which
			// an emission makes for every window and never reads, to the
			// record's start (its engine, larger than a Moments), inside
			// the record; at the record's end, checkptr (on under -race)
			// found it lying beyond the allocation and stopped the
			// program.
			p.wins[w].momOff = -int32(ws)
		}
		if n := len(p.wins[w].mins) + len(p.wins[w].maxs); n > 0 {
			p.wins[w].extOff = int32(ext - ws)
			ext += uintptr(n) * unsafe.Sizeof(reducers.Extreme{})
		}
		rest := off("C" + strconv.Itoa(w))
		if rest == 0 {
			rest = off("G" + strconv.Itoa(w))
		}
		if rest != 0 {
			p.wins[w].restOff = int32(rest - ws)
		}
	}
	return l
}

// cacheLine is the bytes of a cache line on the machines the library
// is tuned for.
const cacheLine = 64

// mallocHeader is the bytes of the header the allocator puts at the
// start of an object with pointers of more than 512 bytes up to 32 KB,
// whose size classes are whole lines from the start of a page: such an
// object starts 8 bytes past a line (TestRecordsOfWholeLinesStartOnALine
// checks it).
const mallocHeader = 8

// lineLead returns the bytes a chunk of n records of size bytes leaves
// before its first record so that the records start on cache lines:
// lead bytes and the allocator's header make a line, when size is whole
// lines and the chunk with its lead stays a small object (no larger
// than 32 KB with the header; chunkLen leaves room for it, as records
// of whole lines fill no closer than a line to a chunk's size); else 0.
func lineLead(size uintptr, n int) uintptr {
	if size%cacheLine != 0 || uintptr(n)*size+cacheLine > uintptr(arenaChunkBytes[len(arenaChunkBytes)-1]) {
		return 0
	}
	return cacheLine - mallocHeader
}

// chunkType is the type of a chunk of n records: lead bytes (see
// lineLead), then the records.
type chunkType struct {
	n    int
	lead uintptr
	typ  reflect.Type
}

// chunk returns a new chunk of n zeroed records, its first record's
// address.
func (l *recordLayout) chunk(n int) unsafe.Pointer {
	var ct *chunkType
	for i := range l.chunks {
		if l.chunks[i].n == n {
			ct = &l.chunks[i]
			break
		}
	}
	if ct == nil {
		lead := lineLead(l.size, n)
		recs := reflect.ArrayOf(n, l.typ)
		typ := recs
		if lead > 0 {
			typ = reflect.StructOf([]reflect.StructField{
				{Name: "L", Type: reflect.ArrayOf(int(lead), reflect.TypeFor[byte]())},
				{Name: "R", Type: recs},
			})
		}
		l.chunks = append(l.chunks, chunkType{n, lead, typ})
		ct = &l.chunks[len(l.chunks)-1]
	}
	return unsafe.Add(reflect.New(ct.typ).UnsafePointer(), ct.lead)
}

// recordBytes returns the size of the plan's records, 0 before its first
// engine.
func (a *arena) recordBytes() int {
	if a.layout == nil {
		return 0
	}
	return int(a.layout.size)
}

// record is one engine's record in its arena.
type record struct {
	p unsafe.Pointer
	l *recordLayout
}

// record returns a fresh (zeroed) record, starting a new chunk when the
// current one is used up. Records stay where they are for as long as
// anything points into them.
//
// want is how many records the caller expects to take soon, this one
// included (the partitions its keys have and that have no engine yet),
// 0 when it does not know. Records taken one after the other, each
// wanting one fewer than the one before, are a run: the partitions a
// push made. A new chunk takes the next of the sizes in turn, but in a
// run that wanted at least as many records as that chunk holds, no more
// than the smallest of fitChunkBytes that holds those still wanted: the
// last chunk of a push that made many partitions is not a 32 KB one most
// of whose records are never taken (at 1,000 partitions, 74 of the 85 of
// the seed's: 28 bytes a partition). Partitions that come a few at a
// time fill the chunks of the sizes in turn, which go on from the last
// chunk so taken.
func (a *arena) record(p *Plan, want int) record {
	if a.layout == nil {
		a.layout = newLayout(p)
	}
	l := a.layout
	if want != a.want-1 {
		a.run = want
	}
	a.want = want
	if a.used == a.n {
		n := chunkLen(int(l.size), a.step)
		if f := fitLen(int(l.size), want); f > 0 && f < n && a.run >= n {
			n = f
		} else {
			a.step = n
		}
		a.chunk = l.chunk(n)
		a.used, a.n = 0, n
	}
	r := record{unsafe.Add(a.chunk, uintptr(a.used)*l.size), l}
	a.used++
	return r
}

func (r record) engine() *Engine { return (*Engine)(r.p) }

package table

import "github.com/pond-go/pond/schema"

// Chunks are where the parts of a task split over workers write rows:
// each chunk of the task's items has a table of its own, and once every
// part has returned the tables are appended to the output in chunk order,
// so the output is row for row what one goroutine doing every chunk in
// order writes. The chunks worker 0 (the caller's goroutine, see
// workers.Pool.Run) takes in order from the first are the exception: they
// are written straight into the output, which then needs no copy of them.
// With workers that split the items by homes (workers.Split), that is the
// whole of worker 0's own home, taken from its front.
//
// A chunk written into the output still gets room in its own table for
// the rows it wrote there: a worker that takes it another time, which
// depends on when its core is free, then grows nothing.
type Chunks struct {
	out    *schema.Table
	tabs   []*schema.Table
	direct int // the chunks [0, direct) are in out
	from   int // where the last of them starts in out, until its table has room for it; -1 after
}

// Reset readies n chunks of out's schema for rows that go to out, which
// may hold rows already: the chunks' rows follow them.
func (c *Chunks) Reset(out *schema.Table, n int) {
	c.out, c.direct, c.from = out, 0, -1
	c.tabs = Empties(c.tabs, n, out.Schema())
}

// For returns the table worker w writes chunk i into: the output itself
// when w is 0 and every chunk before i is there already. Worker 0 must
// write a chunk whole before it asks for the next; any worker but 0 may
// ask at the same time.
func (c *Chunks) For(w, i int) *schema.Table {
	if w != 0 {
		return c.tabs[i]
	}
	c.roomForLast()
	if i == c.direct {
		c.from = c.out.Len()
		c.direct++
		return c.out
	}
	return c.tabs[i]
}

// roomForLast gives the table of the last chunk worker 0 wrote into the
// output room for the rows it wrote there, once.
func (c *Chunks) roomForLast() {
	if c.from >= 0 {
		Reserve(c.tabs[c.direct-1], c.out, c.from, c.out.Len())
		c.from = -1
	}
}

// Join appends the chunks not written into the output, in chunk order,
// once every part has returned, and forgets the output.
func (c *Chunks) Join() {
	c.roomForLast()
	for _, t := range c.tabs[c.direct:] {
		AppendAll(c.out, t)
	}
	c.out = nil
}

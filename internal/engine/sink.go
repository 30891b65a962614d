package engine

import "github.com/pond-go/pond/schema"

// Sink is where a push's emitted rows go: the engine asks for its table
// when it is about to emit the push's first row, and not at all in a push
// that emits nothing. A caller that keeps its latest emission besides
// the push's own (live's current values) can then hold one table with
// room for an emission, not two: the latest emission's table is reused
// only once a newer one is on its way.
type Sink interface {
	Table() *schema.Table
}

// tableSink is a table as a [Sink].
type tableSink schema.Table

func (t *tableSink) Table() *schema.Table { return (*schema.Table)(t) }

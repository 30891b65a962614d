package live

import (
	"github.com/pond-go/pond/internal/check"
	"github.com/pond-go/pond/schema"
)

// stage validates a push under strict ordering in the pass that copies its
// times and numbers to the store's room for them, when the batch is the
// common one: a schema of number and string columns, no missing cells,
// the rows fitting in the store's last chunk. It reports whether the
// batch is valid so; a batch it does not take (another shape, or one that
// fails a check) is validated by [schema.Schema.Validate], which tells
// what is wrong, if anything. The room's cells are not rows until commit
// appends them, so a push refused after stage changes nothing.
func (r *rootNode) stage(b *schema.Batch) bool {
	n := len(b.Time)
	r.makeCaches()
	if !r.plain || n == 0 || len(b.Cols) != len(r.cache)-1 {
		return false
	}
	room, ok := r.s.store.Room(n)
	if !ok {
		return false
	}
	// Sorted times are in range when their ends are.
	if !check.CopySorted(room.Times(n), b.Time) || b.Time[0] < schema.MinTime || b.Time[n-1] > schema.MaxTime {
		return false
	}
	for _, j := range r.numCols {
		v := &b.Cols[j-1]
		if v.Missing != nil || len(v.Num) != n || !check.CopyFinite(room.Nums(j, n), v.Num) {
			return false
		}
	}
	for _, j := range r.strCols {
		if v := &b.Cols[j-1]; v.Missing != nil || len(v.Str) != n {
			return false
		}
	}
	return true
}

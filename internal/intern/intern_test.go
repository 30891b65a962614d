package intern

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestIDsAreDenseAndStable(t *testing.T) {
	tab := New()
	a := tab.ID("a")
	b := tab.ID("b")
	assert.Equal(t, uint32(1), a)
	assert.Equal(t, uint32(2), b)
	assert.Equal(t, a, tab.ID("a"))
	assert.Equal(t, "b", tab.Str(b))
	assert.Equal(t, "", tab.Str(0))
	id, ok := tab.Lookup("")
	assert.False(t, ok, "the empty string has no id until it is seen")
	assert.Zero(t, id)
	assert.Equal(t, uint32(3), tab.ID(""), "the empty string is a value, not missing")
}

func TestTruncateUndoesAssignments(t *testing.T) {
	tab := New()
	tab.ID("a")
	n := tab.Len()
	tab.ID("b")
	tab.ID("c")
	tab.Truncate(n)
	assert.Equal(t, n, tab.Len())
	_, ok := tab.Lookup("b")
	assert.False(t, ok)
	assert.Equal(t, uint32(2), tab.ID("c"))
}

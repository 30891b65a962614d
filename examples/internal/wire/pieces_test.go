package wire

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// recorder keeps each Write as one piece.
type recorder struct{ pieces []string }

func (r *recorder) Write(p []byte) (int, error) {
	r.pieces = append(r.pieces, string(p))
	return len(p), nil
}

// part is 1 kB of a message, numbered so that order shows.
func part(i int) []byte {
	return []byte(strings.Repeat(string(rune('a'+i%26)), 1<<10))
}

// writeParts appends n parts to a message, handing it to p after each,
// then flushes what is left; it returns the message built.
func writeParts(p *Pieces, n int) string {
	var whole []byte
	b := PieceBuffer()
	for i := range n {
		b = append(b, part(i)...)
		whole = append(whole, part(i)...)
		b = p.Flush(b, false)
	}
	p.Flush(b, true)
	return string(whole)
}

func TestPiecesConcatenateToTheWholeMessage(t *testing.T) {
	var r recorder
	p := Pieces{W: &r}
	whole := writeParts(&p, 200)
	require.NoError(t, p.Err())
	assert.Equal(t, whole, strings.Join(r.pieces, ""))
	assert.Equal(t, len(whole), p.Written())
	require.Len(t, r.pieces, 4, "three full pieces of 64 kB, then the rest")
	for _, piece := range r.pieces[:3] {
		assert.Equal(t, PieceBytes, len(piece))
	}
}

func TestAPieceIsWrittenOnlyOnceItHoldsPieceBytes(t *testing.T) {
	var r recorder
	p := Pieces{W: &r}
	b := p.Flush(make([]byte, PieceBytes-1), false)
	assert.Empty(t, r.pieces)
	assert.Len(t, b, PieceBytes-1, "kept to go on appending")
	b = p.Flush(append(b, 'x'), false)
	assert.Len(t, r.pieces, 1)
	assert.Empty(t, b, "emptied once written")
}

func TestTheFinalPieceIsWrittenEvenWhenSmall(t *testing.T) {
	var r recorder
	p := Pieces{W: &r}
	p.Flush([]byte("]}"), true)
	assert.Equal(t, []string{"]}"}, r.pieces)
}

func TestADroppedReaderStopsTheMessageAtTheNextPiece(t *testing.T) {
	var r recorder
	stop := make(chan struct{})
	p := Pieces{W: &r, Stop: stop, AfterPiece: func() {
		if len(r.pieces) == 1 {
			close(stop) // dropped while the first piece was written
		}
	}}
	writeParts(&p, 200)
	assert.ErrorIs(t, p.Err(), ErrStopped)
	assert.Len(t, r.pieces, 1, "nothing after the piece being written")
	assert.Equal(t, PieceBytes, p.Written())
}

func TestAReaderDroppedBeforeTheFirstPieceGetsNothing(t *testing.T) {
	stop := make(chan struct{})
	close(stop)
	var out bytes.Buffer
	p := Pieces{W: &out, Stop: stop}
	p.Flush([]byte("{}"), true)
	assert.ErrorIs(t, p.Err(), ErrStopped)
	assert.Zero(t, out.Len())
}

// failing fails every Write.
type failing struct{ n int }

func (f *failing) Write([]byte) (int, error) {
	f.n++
	return 0, errBroken
}

var errBroken = errors.New("broken pipe")

func TestAWriteErrorEndsTheMessage(t *testing.T) {
	var w failing
	p := Pieces{W: &w}
	writeParts(&p, 200)
	assert.ErrorIs(t, p.Err(), errBroken)
	assert.Equal(t, 1, w.n, "no Write after the failed one")
}

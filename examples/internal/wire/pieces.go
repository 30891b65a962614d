package wire

import (
	"errors"
	"io"
)

// ErrStopped is returned by [Pieces] once its Stop channel is closed: the
// reader was dropped and the rest of the message is not written.
var ErrStopped = errors.New("wire: message stopped: its reader was dropped")

// PieceBytes is the size of the pieces a large message (a snapshot) is
// written in: its writer never holds much more than this of it at once.
const PieceBytes = 64 << 10

// PieceBuffer returns an empty buffer to build pieces in, with room for a
// piece and the part (a row, a tick) that takes it past PieceBytes.
func PieceBuffer() []byte { return make([]byte, 0, PieceBytes+PieceBytes/4) }

// Pieces writes one message to W in pieces: the caller appends the
// message to a buffer and hands it to Flush after each part, and Flush
// writes it out once it holds PieceBytes. A WebSocket page's snapshot,
// hundreds of megabytes at a thousand hosts, is so written as one message
// without being held whole, and stops at the next piece when the page is
// dropped.
//
// After the first error (ErrStopped or W's) Flush writes nothing more and
// Err returns that error.
type Pieces struct {
	// W takes the pieces, all parts of one message (a websocket.Conn's
	// Writer).
	W io.Writer
	// Stop, when closed, stops the message before its next piece.
	Stop <-chan struct{}
	// AfterPiece, when set, runs after each piece is written.
	AfterPiece func()

	written int
	err     error
}

// Flush writes b as the next piece if it holds PieceBytes or more, or if
// final, and returns the buffer to go on appending to: b emptied once
// written, else b.
func (p *Pieces) Flush(b []byte, final bool) []byte {
	if p.err != nil || (!final && len(b) < PieceBytes) {
		return b
	}
	select {
	case <-p.Stop:
		p.err = ErrStopped
		return b
	default:
	}
	_, p.err = p.W.Write(b)
	p.written += len(b)
	if p.AfterPiece != nil {
		p.AfterPiece()
	}
	return b[:0]
}

// Err returns the error that stopped the message, if any.
func (p *Pieces) Err() error { return p.err }

// Written returns the bytes handed to W.
func (p *Pieces) Written() int { return p.written }

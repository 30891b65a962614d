package live

import "github.com/pond-go/pond/schema"

// Typed pushes slices of a struct type T into a series, through a [schema.Codec]
// for the series' schema and a batch it reuses.
type Typed[T any] struct {
	s     *Series
	codec *schema.Codec[T]
	batch *schema.Batch
}

// NewTyped returns a typed pusher of T for s; T's tagged fields must
// match s's schema ([schema.NewCodec]). Errors wrap [ErrConfig], or are
// [ErrClosed] for a series closed already ([ErrBroken] for a broken one).
func NewTyped[T any](s *Series) (*Typed[T], error) {
	if err := s.usable(); err != nil {
		return nil, err
	}
	c, err := schema.NewCodec[T](s.Schema())
	if err != nil {
		return nil, configErr("typed", "", "cannot encode the type", err)
	}
	return &Typed[T]{s: s, codec: c, batch: schema.NewBatch(s.Schema(), 0)}, nil
}

// Codec returns the pusher's codec, for decoding outputs of the series.
func (t *Typed[T]) Codec() *schema.Codec[T] {
	if t == nil {
		return nil
	}
	return t.codec
}

// Push encodes rows and pushes them as one batch: [Series.PushMany] for
// typed rows, atomic like it. Steady pushes do not allocate. A Typed that
// [NewTyped] did not make returns [ErrNotMade].
func (t *Typed[T]) Push(dst []Output, rows []T) ([]Output, error) {
	// A push from inside a push must not overwrite the batch the running
	// push (its outputs) may be reading.
	if t == nil || t.codec == nil {
		return dst, ErrNotMade
	}
	if err := t.s.canPush(); err != nil {
		return dst, err
	}
	t.batch = t.codec.Encode(t.batch, rows)
	return t.s.PushMany(dst, t.batch)
}

package reduce

import (
	"github.com/pond-go/pond/internal/reducers"
	"github.com/pond-go/pond/schema"
)

// newWindow, newSet and newBucket build r's states over a column of kind
// src the way the engines do: check first, then build from the spec.
func newWindow(r Reducer, src schema.Kind) (reducers.Window, error) {
	if err := r.Check(src); err != nil {
		return nil, err
	}
	return reducers.NewWindow(r.spec()), nil
}

func newSet(r Reducer, src schema.Kind) (reducers.Window, error) {
	if err := r.Check(src); err != nil {
		return nil, err
	}
	return reducers.NewSet(r.spec()), nil
}

func newBucket(r Reducer, src schema.Kind) (reducers.Bucket, error) {
	if err := r.Check(src); err != nil {
		return nil, err
	}
	return reducers.NewBucket(r.spec()), nil
}

package worker

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/pond-go/pond/examples/cluster/internal/brokers"
	"github.com/twmb/franz-go/pkg/kadm"
)

// Checkpoint is what a committed transaction records for one input
// partition, beside its offset, in the offset commit's metadata: the time
// of the latest event the partition's series took (not of the last record
// read, which the series may have left out) and the last boundary whose
// rows it wrote.
// A worker that takes the partition over replays from the events of
// (LastEventMs − LongestWindow) up to Offset and emits nothing for
// boundaries up to LastBoundaryMs.
type Checkpoint struct {
	Offset         int64 // the next input offset to process
	LastEventMs    int64 // -1 when no event was taken
	LastBoundaryMs int64 // -1 when no row was written
}

// metadataFormat is the offset metadata: a version tag and the two times.
const metadataFormat = "pond1 t=%d b=%d"

func (c Checkpoint) metadata() string {
	return fmt.Sprintf(metadataFormat, c.LastEventMs, c.LastBoundaryMs)
}

func parseMetadata(s string, c *Checkpoint) error {
	if _, err := fmt.Sscanf(s, metadataFormat, &c.LastEventMs, &c.LastBoundaryMs); err != nil {
		return fmt.Errorf("worker: offset metadata %q: %w", s, err)
	}
	return nil
}

// ReadCheckpoints returns the group's committed checkpoints of the input
// partitions. A partition never committed is absent. A partition with a
// transactional commit still pending (UNSTABLE_OFFSET_COMMIT) is asked
// again until it settles or ctx ends: taking it for "never committed"
// would rebuild an empty series.
func ReadCheckpoints(ctx context.Context, adm *kadm.Client) (map[int32]Checkpoint, error) {
	for wait := 20 * time.Millisecond; ; wait = min(2*wait, time.Second) {
		out, err := readCheckpoints(ctx, adm)
		if err == nil {
			return out, nil
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("%w (last: %w)", ctx.Err(), err)
		case <-time.After(wait):
		}
	}
}

func readCheckpoints(ctx context.Context, adm *kadm.Client) (map[int32]Checkpoint, error) {
	offs, err := adm.FetchOffsets(kadm.RequireStable(ctx), brokers.Group)
	if err != nil {
		return nil, fmt.Errorf("worker: fetch committed offsets: %w", err)
	}
	out := map[int32]Checkpoint{}
	var perr error
	offs.Each(func(o kadm.OffsetResponse) {
		if o.Topic != brokers.Input {
			return
		}
		if o.Err != nil {
			perr = errors.Join(perr, fmt.Errorf("worker: committed offset of partition %d: %w", o.Partition, o.Err))
			return
		}
		if o.At < 0 {
			return
		}
		c := Checkpoint{Offset: o.At}
		if err := parseMetadata(o.Metadata, &c); err != nil {
			perr = errors.Join(perr, err)
		}
		out[o.Partition] = c
	})
	return out, perr
}

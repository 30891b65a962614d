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
	// ReplayFrom is the offset the replay starts at (see replayMarks),
	// -1 when unknown (a checkpoint of an earlier version): the replay
	// then searches the input by timestamp.
	ReplayFrom int64
}

// metadataFormat is the offset metadata: a version tag, the two times
// and the replay's first offset; metadataFormat1 is the first version's,
// without the offset.
const (
	metadataFormat  = "pond2 t=%d b=%d s=%d"
	metadataFormat1 = "pond1 t=%d b=%d"
)

func (c Checkpoint) metadata() string {
	return fmt.Sprintf(metadataFormat, c.LastEventMs, c.LastBoundaryMs, c.ReplayFrom)
}

// errMetadata is the error of an offset committed without a checkpoint
// the worker can read (reset with kafka-consumer-groups or kadm, which
// commit no metadata or their own): the windows cannot be rebuilt, and
// asking again will not change it.
var errMetadata = errors.New("worker: the committed offset carries no checkpoint (was it reset by hand? delete the group's offsets to start the partition afresh)")

func parseMetadata(s string, c *Checkpoint) error {
	if _, err := fmt.Sscanf(s, metadataFormat, &c.LastEventMs, &c.LastBoundaryMs, &c.ReplayFrom); err == nil {
		return nil
	}
	c.ReplayFrom = -1
	if _, err := fmt.Sscanf(s, metadataFormat1, &c.LastEventMs, &c.LastBoundaryMs); err != nil {
		return fmt.Errorf("%w: offset metadata %q: %v", errMetadata, s, err)
	}
	return nil
}

// ReadCheckpoints returns the group's committed checkpoints of the input
// partitions. A partition never committed is absent. A partition with a
// transactional commit still pending (UNSTABLE_OFFSET_COMMIT) is asked
// again until it settles or ctx ends: taking it for "never committed"
// would rebuild an empty series. An offset whose metadata is no
// checkpoint is an error at once (errMetadata): asking again would wait
// for ever.
func ReadCheckpoints(ctx context.Context, adm *kadm.Client) (map[int32]Checkpoint, error) {
	for wait := 20 * time.Millisecond; ; wait = min(2*wait, time.Second) {
		out, err := readCheckpoints(ctx, adm)
		if err == nil {
			return out, nil
		}
		if errors.Is(err, errMetadata) {
			return nil, err
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
			perr = errors.Join(perr, fmt.Errorf("partition %d: %w", o.Partition, err))
		}
		out[o.Partition] = c
	})
	return out, perr
}

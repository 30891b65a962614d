package partition_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/pond-go/pond/partition"
	"github.com/pond-go/pond/schema"
)

func TestKeyErrorCountsPartitionsInTheRightNumber(t *testing.T) {
	for limit, want := range map[int]string{
		1: `partition: row 2: key "b" of column "host" would make more than 1 partition`,
		3: `partition: row 2: key "b" of column "host" would make more than 3 partitions`,
	} {
		err := &partition.KeyError{Row: 2, Column: "host", Key: schema.StringValue("b"), Limit: limit, Err: partition.ErrLimit}
		assert.EqualError(t, err, want)
	}
}

package live_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pond-go/pond/live"
	"github.com/pond-go/pond/partition"
	"github.com/pond-go/pond/schema"
)

// hostBatch is a batch of metricsSchema rows one millisecond apart from
// start, with the given hosts; a nil host is a missing cell.
func hostBatch(start int64, hosts ...*string) *schema.Batch {
	b := schema.NewBatch(metricsSchema, len(hosts))
	var missing []bool
	for i, h := range hosts {
		b.Time = append(b.Time, ms(start+int64(i)))
		b.Cols[0].Num = append(b.Cols[0].Num, float64(i))
		str := ""
		if h != nil {
			str = *h
		}
		b.Cols[1].Str = append(b.Cols[1].Str, str)
		missing = append(missing, h == nil)
	}
	for _, m := range missing {
		if m {
			b.Cols[1].Missing = missing
		}
	}
	return b
}

func str(s string) *string { return &s }

// TestEmptyStringIsAValueWhateverCameBefore: an optional string cell
// holding "" is the string "", not a missing cell, in storage and in
// routing, whatever the previous push held at the same position of the
// batch.
func TestEmptyStringIsAValueWhateverCameBefore(t *testing.T) {
	cases := []struct {
		name   string
		before []*string
		push   []*string
	}{
		{"after a missing cell, in a batch with missing cells", []*string{nil, str("x")}, []*string{str(""), nil}},
		{"after a missing cell, in a batch without missing cells", []*string{nil, str("x")}, []*string{str(""), str("y")}},
		{"after an empty string", []*string{str(""), nil}, []*string{str(""), nil}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := newSeries(t, live.Options{})
			byHost, err := s.PartitionBy(s.Root(), "host", partition.Options{})
			require.NoError(t, err)
			_, err = s.PushMany(nil, hostBatch(0, c.before...))
			require.NoError(t, err)
			_, err = s.PushMany(nil, hostBatch(10, c.push...))
			require.NoError(t, err)

			row, err := s.Row(len(c.before))
			require.NoError(t, err)
			assert.Equal(t, schema.StringValue(""), row[2], "the stored cell")
			snap, err := s.Snapshot(byHost)
			require.NoError(t, err)
			assert.Equal(t, keyCounts(append(c.before, c.push...)), routedKeys(snap), "rows per partition key")
		})
	}
}

// keyCounts counts hosts by value, "<missing>" for a missing one.
func keyCounts(hosts []*string) map[string]int {
	n := map[string]int{}
	for _, h := range hosts {
		if h == nil {
			n["<missing>"]++
		} else {
			n[*h]++
		}
	}
	return n
}

// routedKeys counts the rows of a partition snapshot by their key.
func routedKeys(snap *schema.Table) map[string]int {
	n := map[string]int{}
	col := snap.Col(2)
	for i := range snap.Len() {
		if v, ok := col.Str(i); ok {
			n[v]++
		} else {
			n["<missing>"]++
		}
	}
	return n
}

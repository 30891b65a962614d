package rows

// Tests of bugs found by clprod42_probe_test.go's probing, one each (each
// failed before its fix); each says what the docs promise and what
// happened instead.

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestCp42DecodeRefusesANegativeLeftOutCount: the package doc says
// "cpu_samples_left_out":N follows the samples only when the slice held
// more than MaxSamples (N > 0, the number left out), and Decode "parses a
// row written by AppendJSON", refusing bad records with ErrRow. A record
// with a negative count, which AppendJSON never writes, was taken
// as it was: the dashboard tier then shows n_current = samples + N < 0, and
// adds uint64(that) to events_ingested_total, which wraps to about 1.8e19
// (in the dashboard tier). Decode refuses a negative count now.
func TestCp42DecodeRefusesANegativeLeftOutCount(t *testing.T) {
	bad := `{"ts":200,"host":"a","cpu_samples":[0.5],"cpu_samples_left_out":-5}`
	r, err := Decode([]byte(bad))
	assert.ErrorIs(t, err, ErrRow, "%s read as left_out=%d", bad, r.CPUSamplesLeftOut)
}

package benchmarks

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSeedAlignedDescribesItsWindows(t *testing.T) {
	p, err := NewSeedAlignedPipeline()
	require.NoError(t, err)
	d, err := p.Series.Describe(p.Hosts)
	require.NoError(t, err)
	assert.Equal(t, "rolling aligned: 1m: panes of 200ms; 200ms: panes of 200ms + samples read from the series' rows", d)
	p, err = NewSeedPipeline()
	require.NoError(t, err)
	d, err = p.Series.Describe(p.Hosts)
	require.NoError(t, err)
	assert.Equal(t, "rolling: 1m, 200ms", d)
	d, err = p.Series.Describe(p.PerSec)
	require.NoError(t, err)
	assert.Equal(t, "rolling: 1s (counts by time)", d)
}

package telemetry

import (
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestWriteTextIsPrometheusTextSortedByName(t *testing.T) {
	var b strings.Builder
	require.NoError(t, WriteText(&b, []Family{
		One("b_total", "counter", "B.", 2),
		{Name: "a_lag", Type: "gauge", Help: "A.", Samples: []Sample{{Label: "partition", LabelValue: "3", Value: 7}}},
	}))
	assert.Equal(t, "# HELP a_lag A.\n# TYPE a_lag gauge\na_lag{partition=\"3\"} 7\n"+
		"# HELP b_total B.\n# TYPE b_total counter\nb_total 2\n", b.String())
}

func TestJSONHasNumbersObjectsAndNullForNaN(t *testing.T) {
	got := JSON([]Family{
		One("x", "gauge", "", math.NaN()),
		One("y", "counter", "", 1),
		{Name: "z", Samples: []Sample{{Label: "p", LabelValue: "0", Value: 4}}},
	})
	assert.Equal(t, map[string]any{"x": nil, "y": 1.0, "z": map[string]any{"0": 4.0}}, got)
}

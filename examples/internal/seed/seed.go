// Package seed is the per-host part of the seed workload's pipeline that
// the examples share (docs/workload.md): the events' schema, the 200 ms
// clock, the per-host rolling's two windows, and the columns of that
// rolling's output.
package seed

import (
	"fmt"
	"time"

	"github.com/pond-go/pond/benchmarks"
	"github.com/pond-go/pond/rolling"
	"github.com/pond-go/pond/schema"
)

// Schema is the events' schema.
var Schema = benchmarks.SeedSchema

// TickEvery is the period of the clock the per-host rows are emitted on.
const TickEvery = 200 * time.Millisecond

// LongestWindow is the span of the longest window.
const LongestWindow = time.Minute

// Windows returns the per-host rolling's windows: over the last minute,
// the mean, standard deviation and count of cpu and of requests, and the
// requests' sum; over the last 200 ms, cpu's samples, extremes, mean and
// standard deviation (those of the library's seed benchmarks).
func Windows() []rolling.Window { return benchmarks.SeedWindows() }

// Cols are the columns of the per-host rolling's output.
type Cols struct {
	Host, CPUAvg, CPUSd, CPUN, ReqAvg, ReqSum, ReqN,
	Samples, CPUMin, CPUMax, CurAvg, CurSd schema.Ref
}

// OutputCols resolves the columns of a rolling over [Windows] whose
// output schema is s.
func OutputCols(s *schema.Schema) (Cols, error) {
	var err error
	ref := func(name string, k schema.Kind) schema.Ref {
		r, rerr := s.Ref(name, k)
		if rerr != nil && err == nil {
			err = fmt.Errorf("seed: %w", rerr)
		}
		return r
	}
	num := func(name string) schema.Ref { return ref(name, schema.Number) }
	c := Cols{
		Host: ref("host", schema.String), CPUAvg: num("cpu_avg"), CPUSd: num("cpu_sd"), CPUN: num("cpu_n"),
		ReqAvg: num("requests_avg"), ReqSum: num("requests_sum"), ReqN: num("requests_n"),
		Samples: ref("cpu_samples", schema.Array), CPUMin: num("cpu_min"), CPUMax: num("cpu_max"),
		CurAvg: num("current_avg"), CurSd: num("current_sd"),
	}
	return c, err
}

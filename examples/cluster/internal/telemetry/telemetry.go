// Package telemetry serves a process's metrics and health in the
// aggregator example's conventions: Prometheus text at /metrics, the same
// numbers as JSON at /metrics.json, /healthz always, and /readyz only
// when the process says it is ready.
package telemetry

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"sort"
	"strconv"
)

// Family is one metric: a name, its help, its Prometheus type ("counter"
// or "gauge") and its samples.
type Family struct {
	Name, Help, Type string
	Samples          []Sample
}

// Sample is one value, with at most one label.
type Sample struct {
	Label, LabelValue string
	Value             float64
}

// One returns a family of one unlabelled sample.
func One(name, typ, help string, v float64) Family {
	return Family{Name: name, Help: help, Type: typ, Samples: []Sample{{Value: v}}}
}

// WriteText writes the families in the Prometheus text format, sorted by
// name.
func WriteText(w io.Writer, fams []Family) error {
	sort.SliceStable(fams, func(i, j int) bool { return fams[i].Name < fams[j].Name })
	for _, f := range fams {
		if _, err := fmt.Fprintf(w, "# HELP %s %s\n# TYPE %s %s\n", f.Name, f.Help, f.Name, f.Type); err != nil {
			return err
		}
		for _, s := range f.Samples {
			lbl := ""
			if s.Label != "" {
				lbl = "{" + s.Label + "=" + strconv.Quote(s.LabelValue) + "}"
			}
			if _, err := fmt.Fprintf(w, "%s%s %s\n", f.Name, lbl, formatValue(s.Value)); err != nil {
				return err
			}
		}
	}
	return nil
}

func formatValue(v float64) string {
	switch {
	case math.IsNaN(v):
		return "NaN"
	case math.IsInf(v, 1):
		return "+Inf"
	case math.IsInf(v, -1):
		return "-Inf"
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// JSON returns the families as one object: an unlabelled family is a
// number, a labelled one an object from label value to number. NaN is
// null.
func JSON(fams []Family) map[string]any {
	out := make(map[string]any, len(fams))
	for _, f := range fams {
		if len(f.Samples) == 1 && f.Samples[0].Label == "" {
			out[f.Name] = jsonNum(f.Samples[0].Value)
			continue
		}
		m := make(map[string]any, len(f.Samples))
		for _, s := range f.Samples {
			m[s.LabelValue] = jsonNum(s.Value)
		}
		out[f.Name] = m
	}
	return out
}

func jsonNum(v float64) any {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return v
}

// Handle adds /metrics, /metrics.json, /healthz and /readyz to mux.
func Handle(mux *http.ServeMux, gather func() []Family, ready func() bool) {
	mux.HandleFunc("GET /metrics", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
		_ = WriteText(w, gather())
	})
	mux.HandleFunc("GET /metrics.json", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(JSON(gather()))
	})
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		_, _ = io.WriteString(w, `{"ok":true}`)
	})
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, _ *http.Request) {
		if !ready() {
			w.WriteHeader(http.StatusServiceUnavailable)
			_, _ = io.WriteString(w, `{"ready":false}`)
			return
		}
		_, _ = io.WriteString(w, `{"ready":true}`)
	})
}

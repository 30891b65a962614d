package aggregator

import (
	"encoding/json"
	"net/http"
	"time"

	"github.com/pond-go/pond/examples/internal/dashboard"
)

// Handler returns the aggregator's HTTP handler: the dashboard at /,
// GET /health (liveness: the process serves), GET /readyz (readiness: the
// producer stream is open), GET /metrics (Prometheus text), GET
// /metrics.json (the Node aggregator's JSON), and the WebSockets /live and
// /live-agg. Any other path is a 404.
func (a *Aggregator) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /health", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"ok":true}`))
	})
	mux.HandleFunc("GET /readyz", a.serveReady)
	mux.Handle("GET /metrics", a.promHandler())
	mux.HandleFunc("GET /metrics.json", a.serveMetrics)
	mux.HandleFunc("GET /live", a.ServeLive)
	mux.HandleFunc("GET /live-agg", a.ServeLiveAgg)
	page := dashboard.Handler(dashboard.Page{Title: "pond-go aggregator", RequestTotals: true})
	mux.Handle("GET /{$}", page)
	mux.Handle("GET /static/", page)
	return mux
}

// Readiness is the /readyz document.
type Readiness struct {
	Ready    bool   `json:"ready"`
	Producer string `json:"producer"`
	// UnreachableSince is when the producer stream was lost (RFC 3339),
	// empty while it is open or before the first attempt ends.
	UnreachableSince string `json:"unreachableSince,omitempty"`
	Reconnects       uint64 `json:"reconnects"`
}

// Ready reports whether the producer stream is open.
func (a *Aggregator) Ready() Readiness {
	r := Readiness{Ready: a.m.upstreamConnected.Load() == 1, Producer: a.cfg.ProducerAddr, Reconnects: a.m.reconnects.Load()}
	if ms := a.m.downSinceMs.Load(); ms != 0 && !r.Ready {
		r.UnreachableSince = time.UnixMilli(ms).UTC().Format(time.RFC3339)
	}
	return r
}

// serveReady answers 200 while the producer stream is open and 503
// otherwise, so an orchestrator stops routing to an aggregator that has no
// data to serve.
func (a *Aggregator) serveReady(w http.ResponseWriter, _ *http.Request) {
	r := a.Ready()
	w.Header().Set("Content-Type", "application/json")
	if !r.Ready {
		w.WriteHeader(http.StatusServiceUnavailable)
	}
	json.NewEncoder(w).Encode(r)
}

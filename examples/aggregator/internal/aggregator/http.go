package aggregator

import (
	"net/http"

	"github.com/pond-go/pond/examples/aggregator/internal/dashboard"
)

// Handler returns the aggregator's HTTP handler: the dashboard at /,
// GET /health, GET /metrics (JSON), GET /metrics/prom (Prometheus), and
// the WebSockets /live and /live-agg. Any other path is a 404.
func (a *Aggregator) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /health", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"ok":true}`))
	})
	mux.HandleFunc("GET /metrics", a.serveMetrics)
	mux.Handle("GET /metrics/prom", a.promHandler())
	mux.HandleFunc("GET /live", a.ServeLive)
	mux.HandleFunc("GET /live-agg", a.ServeLiveAgg)
	mux.Handle("GET /{$}", dashboard.Handler())
	mux.Handle("GET /static/", dashboard.Handler())
	return mux
}

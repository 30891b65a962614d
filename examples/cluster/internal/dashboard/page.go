// Copied from examples/aggregator/internal/dashboard (dashboard.go as
// Page, and static/ with the title changed): Go's internal rule forbids
// examples/cluster to import it there. When the aggregator's packages move
// to examples/internal, delete this copy and import them.

package dashboard

import (
	"embed"
	"io/fs"
	"net/http"
)

//go:embed static
var static embed.FS

// Page serves the page at / and its assets under /static/.
func Page() http.Handler {
	sub, err := fs.Sub(static, "static")
	if err != nil {
		panic(err) // the embedded tree always has static/
	}
	files := http.FileServerFS(sub)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-cache")
		if r.URL.Path == "/" {
			http.ServeFileFS(w, r, sub, "index.html")
			return
		}
		http.StripPrefix("/static", files).ServeHTTP(w, r)
	})
}

// Package dashboard is the aggregator's browser dashboard: one static page
// (vanilla JavaScript and canvas, no build step) embedded in the binary
// and served same-origin, so the WebSocket origin check needs no
// exception.
package dashboard

import (
	"embed"
	"io/fs"
	"net/http"
)

//go:embed static
var static embed.FS

// Handler serves the page at / and its assets under /static/.
func Handler() http.Handler {
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

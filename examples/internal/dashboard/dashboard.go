// Package dashboard is the examples' browser dashboard: one static page
// (vanilla JavaScript and canvas, no build step) embedded in the binary and
// served same-origin, so the WebSocket origin check needs no exception.
//
// The page reads /live-agg frames over a WebSocket and polls
// /metrics.json; the aggregator and the cluster's dashboard tier both
// serve it, each with its own [Page] (the title, and whether its frames
// carry a request total).
package dashboard

import (
	"bytes"
	"embed"
	"html/template"
	"net/http"
	"path"
	"time"
)

//go:embed static
var static embed.FS

// index is static/index.html, parsed once; the embedded file always
// parses, so a failure here is a build mistake a test catches.
var index = template.Must(template.ParseFS(static, "static/index.html"))

// Page is what differs between the programs that serve the page.
type Page struct {
	// Title is the page's title and heading; empty means "pond-go".
	Title string
	// RequestTotals shows the stats read from the frames' request total
	// (requests_ingested_total): every host's request rate and total
	// requests. Leave it false where the frames carry no such total (the
	// page would show zeros).
	RequestTotals bool
}

// Handler serves the page at / and its assets (the embedded files beside
// the page) under /static/; any other path is a 404, the page's template
// and the folder included.
func Handler(p Page) http.Handler {
	if p.Title == "" {
		p.Title = "pond-go"
	}
	var page bytes.Buffer
	if err := index.Execute(&page, p); err != nil {
		panic(err) // the template reads only Page's fields
	}
	body := page.Bytes()
	assets := map[string][]byte{}
	entries, err := static.ReadDir("static")
	if err != nil {
		panic(err) // the embedded tree always has static/
	}
	for _, e := range entries {
		if e.IsDir() || e.Name() == "index.html" {
			continue
		}
		b, err := static.ReadFile("static/" + e.Name())
		if err != nil {
			panic(err) // an embedded file listed is there
		}
		assets["/static/"+e.Name()] = b
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-cache")
		if r.URL.Path == "/" {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			_, _ = w.Write(body)
			return
		}
		b, ok := assets[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		http.ServeContent(w, r, path.Base(r.URL.Path), time.Time{}, bytes.NewReader(b))
	})
}

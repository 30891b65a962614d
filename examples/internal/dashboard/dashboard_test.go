package dashboard

import (
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func get(t *testing.T, h http.Handler, path string) (*http.Response, string) {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
	res := rec.Result()
	body, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	return res, string(body)
}

func TestThePageCarriesItsTitle(t *testing.T) {
	cases := []struct {
		name  string
		page  Page
		title string
	}{
		{"the aggregator's", Page{Title: "pond-go aggregator"}, "pond-go aggregator"},
		{"the cluster's", Page{Title: "pond-go cluster"}, "pond-go cluster"},
		{"none given", Page{}, "pond-go"},
		{"markup is escaped", Page{Title: "a <b> & c"}, "a &lt;b&gt; &amp; c"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, body := get(t, Handler(c.page), "/")
			require.Equal(t, http.StatusOK, res.StatusCode)
			assert.Equal(t, "text/html; charset=utf-8", res.Header.Get("Content-Type"))
			assert.Equal(t, "no-cache", res.Header.Get("Cache-Control"))
			assert.Contains(t, body, "<title>"+c.title+"</title>")
			assert.Contains(t, body, "<h1>"+c.title+"</h1>")
		})
	}
}

func TestRequestTotalsAreShownOnlyWhereTheFramesCarryThem(t *testing.T) {
	for _, shown := range []bool{true, false} {
		_, body := get(t, Handler(Page{Title: "t", RequestTotals: shown}), "/")
		for _, id := range []string{`id="req-rate-all"`, `id="req-total"`} {
			if shown {
				assert.Contains(t, body, id)
			} else {
				assert.NotContains(t, body, id)
			}
		}
		assert.Contains(t, body, `id="req-rate"`, "the shown hosts' rate comes from the rows, always there")
	}
}

func TestTheAssetsAreServedUnderStatic(t *testing.T) {
	h := Handler(Page{Title: "t"})
	for path, kind := range map[string]string{"/static/app.js": "text/javascript; charset=utf-8", "/static/style.css": "text/css; charset=utf-8"} {
		res, body := get(t, h, path)
		require.Equal(t, http.StatusOK, res.StatusCode, path)
		assert.Equal(t, kind, res.Header.Get("Content-Type"), path)
		assert.Equal(t, "no-cache", res.Header.Get("Cache-Control"), path)
		assert.NotEmpty(t, body, path)
	}
	res, _ := get(t, h, "/static/missing.js")
	assert.Equal(t, http.StatusNotFound, res.StatusCode)
	res, _ = get(t, h, "/elsewhere")
	assert.Equal(t, http.StatusNotFound, res.StatusCode)
}

// The page's template is served at / only, filled in: under /static/ it
// would come out raw ({{.Title}}), and the folder is not listed.
func TestThePageTemplateIsNotAnAsset(t *testing.T) {
	h := Handler(Page{Title: "t"})
	for _, path := range []string{"/static/index.html", "/static/", "/static", "/static/./index.html", "/static//", "/static/index.html/"} {
		res, body := get(t, h, path)
		assert.Equal(t, http.StatusNotFound, res.StatusCode, path)
		assert.NotContains(t, body, "{{", path)
	}
}

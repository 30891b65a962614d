package main

import (
	"strconv"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/pond-go/pond/examples/internal/browsertest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDashboardInHeadlessChromium loads the dashboard tier's page and
// checks that the table fills from committed rows, the status reads live
// and anomaly points appear (at σ = 1). The same check as the
// aggregator's browser test.
func TestDashboardInHeadlessChromium(t *testing.T) {
	ctx := browsertest.Start(t, 90*time.Second, 1280, 1000)
	url, _ := started(t, "-addr", "127.0.0.1:0", "-hosts", "8", "-rate", "20")

	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(url+"?sigma=1")))
	type view struct {
		Status string `json:"status"`
		Rows   int    `json:"rows"`
		Dots   string `json:"dots"`
		FPS    string `json:"fps"`
	}
	const probe = `({
		status: document.getElementById('status').textContent,
		rows: document.querySelectorAll('#hosts-table tbody tr').length,
		dots: document.getElementById('anomaly-count').textContent,
		fps: document.getElementById('probe-fps').textContent,
	})`
	v := browsertest.WaitFor(t, ctx, "live, 8 rows, anomalies", probe, func(v view) bool {
		dots, _ := strconv.Atoi(v.Dots)
		return v.Status == "live" && v.Rows == 8 && dots > 0
	})
	t.Logf("status %q, %d table rows, %s anomaly points, %s frames/s", v.Status, v.Rows, v.Dots, v.FPS)
}

// TestDashboardIsTheClustersWithoutRequestTotals loads the tier's page:
// it carries the cluster's title, leaves off the request totals (the rows
// carry no per-tick request count) and still draws the stats after them.
func TestDashboardIsTheClustersWithoutRequestTotals(t *testing.T) {
	ctx := browsertest.Start(t, 90*time.Second, 1280, 1000)
	url, _ := started(t, "-addr", "127.0.0.1:0", "-hosts", "8", "-rate", "20")
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(url)))
	type page struct {
		Title   string `json:"title"`
		Heading string `json:"heading"`
		Totals  int    `json:"totals"`
		ReqRate string `json:"reqRate"`
		Logs    int    `json:"logs"`
		Rows    int    `json:"rows"`
		Shown   string `json:"shown"`
	}
	const probe = `({
		title: document.title,
		heading: document.querySelector('h1').textContent,
		totals: document.querySelectorAll('#req-rate-all, #req-total').length,
		reqRate: document.getElementById('req-rate').textContent,
		logs: document.querySelectorAll('#logs li').length,
		rows: document.querySelectorAll('#hosts-table tbody tr').length,
		shown: document.querySelector('.top-n-count').textContent,
	})`
	// The latest ticks and the shown-host count are written after the
	// request stats: they fill only if those did not fail.
	v := browsertest.WaitFor(t, ctx, "8 rows, the latest ticks, 8 shown", probe, func(v page) bool {
		return v.Rows == 8 && v.Logs > 0 && v.Shown == "8"
	})
	assert.Equal(t, "pond-go cluster", v.Title)
	assert.Equal(t, "pond-go cluster", v.Heading)
	assert.Zero(t, v.Totals, "no request totals on the page")
	assert.Regexp(t, `^\d+\.\d$`, v.ReqRate, "the shown hosts' request rate")
}

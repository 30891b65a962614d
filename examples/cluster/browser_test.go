package main

import (
	"context"
	"os"
	"os/exec"
	"strconv"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// chromiumPath finds a Chromium: $CHROMIUM, else Debian's /usr/bin/chromium,
// else one on PATH.
func chromiumPath() string {
	if p := os.Getenv("CHROMIUM"); p != "" {
		return p
	}
	if _, err := os.Stat("/usr/bin/chromium"); err == nil {
		return "/usr/bin/chromium"
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// browser starts a headless Chromium for the test, or skips the test
// (saying why) when there is none.
func browser(t *testing.T) context.Context {
	t.Helper()
	path := chromiumPath()
	if path == "" {
		t.Skip("no Chromium found (apt-get install chromium, or set $CHROMIUM); .ci/run installs it")
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.NoFirstRun,
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1280, 1000),
	)
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancelAlloc)
	ctx, cancel := chromedp.NewContext(allocCtx)
	t.Cleanup(cancel)
	ctx, cancelTimeout := context.WithTimeout(ctx, 90*time.Second)
	t.Cleanup(cancelTimeout)
	return ctx
}

// TestDashboardInHeadlessChromium loads the dashboard tier's page and
// checks that the table fills from committed rows, the status reads live
// and anomaly points appear (at σ = 1). The same check as the
// aggregator's browser test.
func TestDashboardInHeadlessChromium(t *testing.T) {
	ctx := browser(t)
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
	deadline := time.Now().Add(60 * time.Second)
	for {
		v, err := chromedp.Run(ctx, chromedp.Evaluate[view](probe))
		require.NoError(t, err)
		dots, _ := strconv.Atoi(v.Dots)
		if v.Status == "live" && v.Rows == 8 && dots > 0 {
			t.Logf("status %q, %d table rows, %d anomaly points, %s frames/s", v.Status, v.Rows, dots, v.FPS)
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("dashboard not ready: status %q, %d table rows, %d anomaly points", v.Status, v.Rows, dots)
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// TestDashboardIsTheClustersWithoutRequestTotals loads the tier's page:
// it carries the cluster's title, leaves off the request totals (the rows
// carry no per-tick request count) and still draws the stats after them.
func TestDashboardIsTheClustersWithoutRequestTotals(t *testing.T) {
	ctx := browser(t)
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
	deadline := time.Now().Add(60 * time.Second)
	for {
		v, err := chromedp.Run(ctx, chromedp.Evaluate[page](probe))
		require.NoError(t, err)
		// The latest ticks and the shown-host count are written after the
		// request stats: they fill only if those did not fail.
		if v.Rows == 8 && v.Logs > 0 && v.Shown == "8" {
			assert.Equal(t, "pond-go cluster", v.Title)
			assert.Equal(t, "pond-go cluster", v.Heading)
			assert.Zero(t, v.Totals, "no request totals on the page")
			assert.Regexp(t, `^\d+\.\d$`, v.ReqRate, "the shown hosts' request rate")
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the page did not fill: %+v", v)
		}
		time.Sleep(250 * time.Millisecond)
	}
}

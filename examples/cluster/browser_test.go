package main

import (
	"context"
	"os"
	"os/exec"
	"strconv"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
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

// TestDashboardInHeadlessChromium loads the dashboard tier's page and
// checks that the table fills from committed rows, the status reads live
// and anomaly points appear (at σ = 1). The same check as the
// aggregator's browser test.
func TestDashboardInHeadlessChromium(t *testing.T) {
	path := chromiumPath()
	if path == "" {
		t.Skip("no Chromium found (apt-get install chromium, or set $CHROMIUM); .ci/run installs it")
	}
	url, _ := started(t, "-addr", "127.0.0.1:0", "-hosts", "8", "-rate", "20")

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
	defer cancelAlloc()
	ctx, cancel := chromedp.NewContext(allocCtx)
	defer cancel()
	ctx, cancelTimeout := context.WithTimeout(ctx, 90*time.Second)
	defer cancelTimeout()

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

package main

import (
	"context"
	"fmt"
	"math"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
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
func browser(t *testing.T, timeout time.Duration) context.Context {
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
		chromedp.WindowSize(1280, 1400),
	)
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancelAlloc)
	ctx, cancel := chromedp.NewContext(allocCtx)
	t.Cleanup(cancel)
	ctx, cancelTimeout := context.WithTimeout(ctx, timeout)
	t.Cleanup(cancelTimeout)
	return ctx
}

// view is what the tests read off the page.
type view struct {
	Status   string `json:"status"`
	Rows     int    `json:"rows"`
	Dots     string `json:"dots"`
	FPS      string `json:"fps"`
	XLabels  string `json:"xLabels"`
	YMin     string `json:"yMin"`
	YMax     string `json:"yMax"`
	BandMin  string `json:"bandMin"`
	BandMax  string `json:"bandMax"`
	BarScale string `json:"barScale"`
	Colors   int    `json:"colors"`
}

const probe = `(() => {
	const c = document.getElementById('cpu-chart').dataset;
	const sw = [...document.querySelectorAll('#hosts-table .swatch')].map((e) => e.style.background);
	return {
		status: document.getElementById('status').textContent,
		rows: document.querySelectorAll('#hosts-table tbody tr').length,
		dots: document.getElementById('anomaly-count').textContent,
		fps: document.getElementById('probe-fps').textContent,
		xLabels: c.xLabels || '', yMin: c.yMin || '', yMax: c.yMax || '',
		bandMin: c.bandMin || '', bandMax: c.bandMax || '',
		barScale: document.getElementById('anomaly-bars').dataset.scaleMax || '',
		colors: new Set(sw).size,
	};
})()`

// waitFor polls the page until ok accepts what it shows, for up to 60 s.
func waitFor(t *testing.T, ctx context.Context, what string, ok func(view) bool) view {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		v, err := chromedp.Run(ctx, chromedp.Evaluate[view](probe))
		require.NoError(t, err)
		if ok(v) {
			return v
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: the page shows %+v", what, v)
		}
		time.Sleep(250 * time.Millisecond)
	}
}

func num(s string) float64 {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return math.NaN()
	}
	return f
}

// TestDashboardInHeadlessChromium loads the dashboard and checks that the
// table fills with hosts of distinct colours, the status reads live,
// anomaly points appear (at σ = 1, where the producer's ±0.2 noise crosses
// the band often), the time axis is labelled, the CPU axis contains the
// bands and the anomaly chart has a scale.
func TestDashboardInHeadlessChromium(t *testing.T) {
	ctx := browser(t, 90*time.Second)
	url, _, _ := started(t, "-addr", "127.0.0.1:0", "-hosts", "8", "-rate", "20", "-seed", "4")
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(url+"?sigma=1")))
	v := waitFor(t, ctx, "live, 8 rows, anomalies, bands", func(v view) bool {
		dots, _ := strconv.Atoi(v.Dots)
		return v.Status == "live" && v.Rows == 8 && dots > 0 && v.BandMax != ""
	})
	t.Logf("%+v", v)
	assert.NotEmpty(t, v.XLabels, "the time axis has labels")
	assert.Regexp(t, `^\d\d:\d\d(,\d\d:\d\d)*$`, v.XLabels)
	assert.LessOrEqual(t, num(v.YMin), num(v.BandMin), "the axis reaches below the lowest band")
	assert.GreaterOrEqual(t, num(v.YMax), num(v.BandMax), "the axis reaches above the highest band")
	assert.GreaterOrEqual(t, num(v.BarScale), 5.0, "the anomaly chart's scale has a floor")
	assert.Equal(t, 8, v.Colors, "eight hosts, eight colours")
}

// TestDashboardShowsTheProducerDown points the aggregator at a port where
// no producer listens: /readyz is 503 and the page says since when the
// producer is unreachable instead of "live".
func TestDashboardShowsTheProducerDown(t *testing.T) {
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	dead := lis.Addr().String()
	lis.Close()
	ctx := browser(t, 90*time.Second)
	url, _, _ := started(t, "-addr", "127.0.0.1:0", "-producer", dead)
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(url)))
	v := waitFor(t, ctx, "producer unreachable", func(v view) bool {
		return strings.HasPrefix(v.Status, "producer unreachable since ")
	})
	assert.Regexp(t, `^producer unreachable since \d\d:\d\d:\d\d$`, v.Status)

	resp, err := http.Get(url + "readyz")
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusServiceUnavailable, resp.StatusCode)
}

// TestDashboardIsTheAggregatorsWithRequestTotals loads the page: it carries
// the aggregator's title and shows every host's request rate and total
// requests, read from the frames' request total.
func TestDashboardIsTheAggregatorsWithRequestTotals(t *testing.T) {
	ctx := browser(t, 90*time.Second)
	url, _, _ := started(t, "-addr", "127.0.0.1:0", "-hosts", "8", "-rate", "20", "-seed", "4")
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(url)))
	type page struct {
		Title   string `json:"title"`
		Heading string `json:"heading"`
		RateAll string `json:"rateAll"`
		Total   string `json:"total"`
	}
	const probe = `({
		title: document.title,
		heading: document.querySelector('h1').textContent,
		rateAll: document.getElementById('req-rate-all').textContent,
		total: document.getElementById('req-total').textContent,
	})`
	deadline := time.Now().Add(60 * time.Second)
	for {
		v, err := chromedp.Run(ctx, chromedp.Evaluate[page](probe))
		require.NoError(t, err)
		if v.RateAll != "–" && v.Total != "–" {
			assert.Equal(t, "pond-go aggregator", v.Title)
			assert.Equal(t, "pond-go aggregator", v.Heading)
			assert.Regexp(t, `^[\d,]+$`, v.RateAll)
			assert.Regexp(t, `^[\d,]+$`, v.Total)
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the request totals did not fill: %+v", v)
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// TestScreenshots writes the dashboard at 8 and 1000 hosts to
// $POND_SCREENSHOTS (for the README); it is skipped unless that is set.
func TestScreenshots(t *testing.T) {
	dir := os.Getenv("POND_SCREENSHOTS")
	if dir == "" {
		t.Skip("set POND_SCREENSHOTS to a directory to write the dashboard's screenshots")
	}
	for _, hosts := range []int{8, 1000} {
		ctx := browser(t, 3*time.Minute)
		url, _, stop := started(t, "-addr", "127.0.0.1:0", "-hosts", strconv.Itoa(hosts), "-rate", "10", "-seed", "4")
		require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(url)))
		waitFor(t, ctx, "live", func(v view) bool { return v.Status == "live" && v.Rows >= min(hosts, 10) })
		time.Sleep(90 * time.Second) // let the 1m bands and the anomalies build up
		png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(fmt.Sprintf("%s/dashboard-%d.png", dir, hosts), png, 0o644))
		stop()
	}
}

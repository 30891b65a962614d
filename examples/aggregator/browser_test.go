package main

import (
	"fmt"
	"math"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/pond-go/pond/examples/internal/browsertest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

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
	ctx := browsertest.Start(t, 90*time.Second, 1280, 1400)
	url, _, _ := started(t, "-addr", "127.0.0.1:0", "-hosts", "8", "-rate", "20", "-seed", "4")
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(url+"?sigma=1")))
	v := browsertest.WaitFor(t, ctx, "live, 8 rows, anomalies, bands", probe, func(v view) bool {
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
	ctx := browsertest.Start(t, 90*time.Second, 1280, 1400)
	url, _, _ := started(t, "-addr", "127.0.0.1:0", "-producer", dead)
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(url)))
	v := browsertest.WaitFor(t, ctx, "producer unreachable", probe, func(v view) bool {
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
	ctx := browsertest.Start(t, 90*time.Second, 1280, 1400)
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
	v := browsertest.WaitFor(t, ctx, "the request totals", probe, func(v page) bool {
		return v.RateAll != "–" && v.Total != "–"
	})
	assert.Equal(t, "pond-go aggregator", v.Title)
	assert.Equal(t, "pond-go aggregator", v.Heading)
	assert.Regexp(t, `^[\d,]+$`, v.RateAll)
	assert.Regexp(t, `^[\d,]+$`, v.Total)
}

// TestScreenshots writes the dashboard at 8 and 1000 hosts to
// $POND_SCREENSHOTS (for the README); it is skipped unless that is set.
func TestScreenshots(t *testing.T) {
	dir := os.Getenv("POND_SCREENSHOTS")
	if dir == "" {
		t.Skip("set POND_SCREENSHOTS to a directory to write the dashboard's screenshots")
	}
	for _, hosts := range []int{8, 1000} {
		ctx := browsertest.Start(t, 3*time.Minute, 1280, 1400)
		url, _, stop := started(t, "-addr", "127.0.0.1:0", "-hosts", strconv.Itoa(hosts), "-rate", "10", "-seed", "4")
		require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(url)))
		browsertest.WaitFor(t, ctx, "live", probe, func(v view) bool { return v.Status == "live" && v.Rows >= min(hosts, 10) })
		time.Sleep(90 * time.Second) // let the 1m bands and the anomalies build up
		png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(fmt.Sprintf("%s/dashboard-%d.png", dir, hosts), png, 0o644))
		stop()
	}
}

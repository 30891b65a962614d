package main

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/pond-go/pond/examples/aggregator/internal/producer"
	"github.com/pond-go/pond/examples/aggregator/internal/wire"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// started runs the command in-process (what go run ./examples/aggregator
// does) and returns the dashboard URL from its ready lines, and a function
// that stops it with the context a signal would cancel and returns its
// remaining output.
func started(t *testing.T, args ...string) (url string, ready string, stop func() string) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, args, pw, io.Discard)
		pw.Close()
	}()
	lines := bufio.NewScanner(pr)
	dash := regexp.MustCompile(`^dashboard: (http://127\.0\.0\.1:\d+/)$`)
	var out strings.Builder
	for url == "" {
		require.True(t, lines.Scan(), "the command ended before its ready line: %s", out.String())
		out.WriteString(lines.Text() + "\n")
		if m := dash.FindStringSubmatch(lines.Text()); m != nil {
			url = m[1]
		}
	}
	rest := make(chan string, 1)
	go func() {
		var b strings.Builder
		for lines.Scan() {
			b.WriteString(lines.Text() + "\n")
		}
		rest <- b.String()
	}()
	stopped := false
	stop = func() string {
		if stopped {
			return ""
		}
		stopped = true
		cancel()
		select {
		case err := <-done:
			require.NoError(t, err)
		case <-time.After(30 * time.Second):
			t.Fatal("the command did not stop")
		}
		return <-rest
	}
	t.Cleanup(func() { stop() })
	return url, out.String(), stop
}

func TestOneCommandStartsProducerAggregatorAndDashboard(t *testing.T) {
	url, ready, stop := started(t, "-addr", "127.0.0.1:0", "-hosts", "3", "-rate", "20", "-seed", "1")
	assert.Regexp(t, `embedded producer on 127\.0\.0\.1:\d+ \(3 hosts × 20 events/s\)`, ready)
	assert.Regexp(t, `aggregator listening on :\d+ \(producer=127\.0\.0\.1:\d+, sampleStride=1, ordering=strict\)`, ready)

	resp, err := http.Get(url)
	require.NoError(t, err)
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	assert.Contains(t, string(page), "pond-go aggregator")

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(url, "http")+"live-agg", nil)
	require.NoError(t, err)
	defer conn.CloseNow()
	conn.SetReadLimit(1 << 26)
	var appends int
	for appends < 3 {
		_, data, err := conn.Read(ctx)
		require.NoError(t, err)
		f, err := wire.Decode(data)
		require.NoError(t, err)
		if f.Type == wire.TypeAggregateAppend {
			appends++
			assert.Len(t, f.Rows, 3)
		}
	}
	assert.Contains(t, stop(), "aggregator stopped")
}

func TestExternalProducerFromTheEnvironment(t *testing.T) {
	p, err := producer.Start(producer.Config{GRPCAddr: "127.0.0.1:0", Hosts: 2, EventsPerSec: 20, Variability: 0.4})
	require.NoError(t, err)
	defer p.Stop()
	t.Setenv("PRODUCER_URL", p.GRPCAddr())
	t.Setenv("SAMPLE_STRIDE", "2")
	t.Setenv("AGGREGATOR_ADDR", "127.0.0.1:0")
	url, ready, stop := started(t)
	assert.NotContains(t, ready, "embedded producer")
	assert.Contains(t, ready, "producer="+p.GRPCAddr()+", sampleStride=2")
	resp, err := http.Get(url + "health")
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	stop()
}

func TestBadSettingsAreErrors(t *testing.T) {
	for _, args := range [][]string{
		{"-ordering", "sideways"},
		{"-thresholds", "1,x"},
		{"-rate", "0", "-addr", "127.0.0.1:0"},
	} {
		err := run(context.Background(), args, io.Discard, io.Discard)
		assert.Error(t, err, "%v", args)
	}
	t.Setenv("HOST_COUNT", "many")
	assert.ErrorContains(t, run(context.Background(), nil, io.Discard, io.Discard), "HOST_COUNT")
}

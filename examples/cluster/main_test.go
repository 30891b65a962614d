package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// started runs the command in-process and returns the dashboard URL once
// its ready line is printed, and a stop function returning the rest of
// its output.
func started(t *testing.T, args ...string) (url string, stop func() string) {
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
	return url, stop
}

// TestTheOneCommandCommitsRowsAndGetsReady: go run ./examples/cluster
// starts Kafka, the producer, three workers and the dashboard; it gets
// ready, commits rows, reports them in /metrics.json, and stops cleanly.
func TestTheOneCommandCommitsRowsAndGetsReady(t *testing.T) {
	url, stop := started(t, "-addr", "127.0.0.1:0", "-hosts", "8", "-rate", "20")
	deadline := time.Now().Add(60 * time.Second)
	var m map[string]any
	for {
		resp, err := http.Get(url + "metrics.json")
		require.NoError(t, err)
		m = nil
		require.NoError(t, json.NewDecoder(resp.Body).Decode(&m))
		resp.Body.Close()
		ready, err := http.Get(url + "readyz")
		require.NoError(t, err)
		ready.Body.Close()
		if n, _ := m["pond_dashboard_rows_in_total"].(float64); n > 50 && ready.StatusCode == http.StatusOK {
			break
		}
		require.True(t, time.Now().Before(deadline), "no rows within 60 s: %v", m)
		time.Sleep(200 * time.Millisecond)
	}
	assert.Greater(t, m["pond_cluster_committed_transactions_total"], 0.0)
	assert.Equal(t, m["pond_cluster_rows_out_total"] != nil, true)
	resp, err := http.Get(url + "metrics")
	require.NoError(t, err)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	assert.Contains(t, string(body), "# TYPE pond_cluster_consumer_lag gauge")
	assert.Contains(t, stop(), "cluster stopped")
}

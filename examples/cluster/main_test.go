package main

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/pond-go/pond/examples/cluster/internal/brokers"
	"github.com/pond-go/pond/examples/internal/cmdtest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// started runs the command in-process (what go run ./examples/cluster
// does) and returns the dashboard URL once its ready line is printed, and
// a function that stops it and returns the rest of its output.
func started(t *testing.T, args ...string) (url string, stop func() string) {
	t.Helper()
	url, _, stop = cmdtest.Start(t, run, args...)
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

// TestHelpExitsZero: -help prints the flags and is not a failure (it
// used to print "cluster: flag: help requested" and exit 1).
func TestHelpExitsZero(t *testing.T) {
	if os.Getenv("POND_CLUSTER_MAIN") == "1" {
		os.Args = []string{"cluster", "-help"}
		main()
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelpExitsZero$")
	cmd.Env = append(os.Environ(), "POND_CLUSTER_MAIN=1")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	assert.Contains(t, string(out), "-workers int")
	assert.NotContains(t, string(out), "help requested")
}

// TestBadFlagsAreRefused: a flag value the command cannot use stops it
// before anything starts, with a message naming the flag; each of these
// used to be taken silently (no workers, a partition count cut to 32
// bits, a seed cut to 32 bits, a stray word ignored).
func TestBadFlagsAreRefused(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-workers", "-2"}, "-workers -2"},
		{[]string{"-partitions", "0"}, "-partitions 0"},
		{[]string{"-partitions", "-3"}, "-partitions -3"},
		{[]string{"-partitions", "5000000000"}, "-partitions 5000000000"},
		{[]string{"-seed", "4294967296"}, "-seed 4294967296"},
		{[]string{"-hosts", "0"}, "-hosts 0"},
		{[]string{"-rate", "7"}, "-rate 7"},
		{[]string{"-ping-interval", "0s"}, "-ping-interval 0s"},
		{[]string{"-max-hosts", "0"}, "-max-hosts 0"},
		{[]string{"-ping-timeout", "-2s"}, "-ping-timeout -2s"},
		{[]string{"stray"}, `unexpected argument "stray"`},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			_, err := parse(tc.args, io.Discard)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
	for _, args := range [][]string{
		{"-role", "worker", "-hosts", "0", "-rate", "7"}, // the producer's flags, unused
		{"-role", "producer", "-workers", "0"},
		{"-seed", "4294967295", "-partitions", "1", "-workers", "1"},
	} {
		_, err := parse(args, io.Discard)
		assert.NoError(t, err, "%q", args)
	}
	o, err := parse([]string{"-ping-interval", "30s", "-ping-timeout", "5s"}, io.Discard)
	require.NoError(t, err)
	assert.Equal(t, 30*time.Second, o.pingEvery)
	assert.Equal(t, 5*time.Second, o.pingWait)
	o, err = parse(nil, io.Discard)
	require.NoError(t, err)
	assert.Equal(t, 10*time.Second, o.pingEvery, "the default")
	assert.Equal(t, 10*time.Second, o.pingWait, "the default")
}

// TestBrokersTakeSpacesAfterCommas: -brokers "host:port, host:port" (as
// one writes a list) reaches the brokers; the seed with a space before it
// used to be dialled as " host", a host name that resolves nowhere.
func TestBrokersTakeSpacesAfterCommas(t *testing.T) {
	e, err := brokers.StartEmbedded()
	require.NoError(t, err)
	t.Cleanup(e.Close)
	addr := e.Addrs()[0]
	o, err := parse([]string{"-brokers", "127.0.0.1:1, " + addr + " ,"}, io.Discard)
	require.NoError(t, err)
	assert.Equal(t, []string{"127.0.0.1:1", addr}, o.seeds)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	require.NoError(t, brokers.CreateTopics(ctx, o.seeds, brokers.DefaultPartitions))
}

// TestATakenAddrStopsEveryPartStarted: when -addr is taken, run returns
// the error only once the producer, workers and dashboard tier it had
// started have stopped: no goroutine of run's is left when it returns.
// (It returned at once and left them running.)
func TestATakenAddrStopsEveryPartStarted(t *testing.T) {
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer lis.Close()
	err = run(context.Background(), []string{"-addr", lis.Addr().String(), "-hosts", "2", "-workers", "2"}, io.Discard, io.Discard)
	require.ErrorContains(t, err, "choose another with -addr")
	assert.Empty(t, goroutinesIn("github.com/pond-go/pond/examples/cluster.run."), "goroutines of run still running after it returned")
}

// goroutinesIn returns the stacks of the goroutines with a frame of a
// function whose name starts with prefix.
func goroutinesIn(prefix string) []string {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	var out []string
	for _, g := range strings.Split(string(buf), "\n\n") {
		if strings.Contains(g, "\n"+prefix) {
			out = append(out, g)
		}
	}
	return out
}

package main

import (
	"context"
	"flag"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/pond-go/pond/examples/aggregator/internal/aggregator"
	"github.com/pond-go/pond/examples/aggregator/internal/producer"
	"github.com/pond-go/pond/examples/internal/cmdtest"
	"github.com/pond-go/pond/examples/internal/wire"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// started runs the command in-process (what go run ./examples/aggregator
// does) and returns the dashboard URL from its ready lines, those lines,
// and a function that stops it and returns its remaining output.
func started(t *testing.T, args ...string) (url string, ready string, stop func() string) {
	t.Helper()
	return cmdtest.Start(t, run, args...)
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

// TestBadFlagsSayWhatWouldDo runs the command with each bad setting and
// checks that it stops before listening, with a message that names the
// flag, quotes the value and says what is wanted.
func TestBadFlagsSayWhatWouldDo(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"-ordering", "foo"}, `-ordering "foo": want strict, drop or reorder`},
		{[]string{"-thresholds", "abc"}, `-thresholds "abc": "abc" is not a positive number; want comma-separated σ values such as 1,1.5,2`},
		{[]string{"-thresholds", "1,-2"}, `"-2" is not a positive number`},
		{[]string{"-producer", "localhost"}, `-producer "localhost": want host:port with a port number, e.g. 127.0.0.1:50051`},
		{[]string{"-producer", "localhost:http"}, `-producer "localhost:http": want host:port`},
		{[]string{"-sample-stride", "0"}, `-sample-stride 0: want at least 1`},
		{[]string{"-retention", "0s"}, `-retention 0s: want a positive duration, e.g. 30s`},
		{[]string{"-retention-ms", "0"}, `-retention 0s: want a positive duration`},
		{[]string{"-retention", "soon"}, `invalid value "soon" for flag -retention`},
		{[]string{"-history", "-1s"}, `-history -1s: want 0 (none) or at least 1ms`},
		{[]string{"-ordering", "reorder", "-grace", "1m", "-retention", "30s"}, `-grace 1m0s: want at most -retention (30s)`},
		{[]string{"-rate", "0"}, `-rate 0: want events per second per host from 1e-09 to 1e+09`},
		{[]string{"-rate", "5e9"}, `-rate 5e+09: want events per second per host from 1e-09 to 1e+09`},
		{[]string{"-hosts", "0"}, `-hosts 0: want at least 1`},
		{[]string{"-variability", "NaN"}, `-variability NaN: want a finite width such as 0.4`},
		{[]string{"-seed", "x"}, `-seed "x": want an integer from 0 to 4294967295`},
		{[]string{"-addr", "8080"}, `-addr "8080": want host:port, e.g. 127.0.0.1:8080`},
		{[]string{"-max-hosts", "0"}, `-max-hosts 0: want at least 1`},
		{[]string{"-workers", "0"}, `-workers 0: want at least 1`},
		{[]string{"-ping-interval", "0s"}, `-ping-interval 0s: want a positive duration`},
		{[]string{"-ping-timeout", "-1s"}, `-ping-timeout -1s: want a positive duration`},
		{[]string{"-workers", "1000"}, `-workers 1000: want at most 256`},
		{[]string{"extra"}, `unexpected argument "extra"`},
	}
	for _, c := range cases {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			err := run(context.Background(), c.args, io.Discard, io.Discard)
			require.Error(t, err)
			assert.Contains(t, err.Error(), c.want)
		})
	}
	t.Run("a history under 1ms is refused, not taken as none", func(t *testing.T) {
		_, err := parseFlags([]string{"-history", "500us"}, io.Discard)
		assert.ErrorContains(t, err, `-history 500µs: want 0 (none) or at least 1ms`)
		st, err := parseFlags([]string{"-history", "1ms"}, io.Discard)
		require.NoError(t, err)
		assert.Equal(t, time.Millisecond, st.cfg.History)
	})
	t.Run("a bad environment variable is named", func(t *testing.T) {
		t.Setenv("HOST_COUNT", "many")
		assert.ErrorContains(t, run(context.Background(), nil, io.Discard, io.Discard), `HOST_COUNT="many": not an integer`)
	})
	t.Run("an old millisecond variable still reads as milliseconds", func(t *testing.T) {
		t.Setenv("RETENTION_MS", "1500")
		st, err := parseFlags(nil, io.Discard)
		require.NoError(t, err)
		assert.Equal(t, 1500*time.Millisecond, st.cfg.Retention)
	})
}

func TestDurationFlagsTakeGoDurations(t *testing.T) {
	st, err := parseFlags([]string{"-retention", "5m", "-history", "0", "-ordering", "reorder", "-grace", "90s", "-max-skew", "2s", "-client-max-lag", "3s"}, io.Discard)
	require.NoError(t, err)
	assert.Equal(t, 5*time.Minute, st.cfg.Retention)
	assert.Equal(t, 90*time.Second, st.cfg.Grace)
	assert.Equal(t, time.Duration(-1), st.cfg.History, "0 turns the history off")
	assert.Equal(t, 2*time.Second, st.cfg.MaxSkew)
	assert.Equal(t, 3*time.Second, st.cfg.ClientMaxLag)

	st, err = parseFlags([]string{"-ping-interval", "30s", "-ping-timeout", "5s"}, io.Discard)
	require.NoError(t, err)
	assert.Equal(t, 30*time.Second, st.cfg.ClientPingInterval)
	assert.Equal(t, 5*time.Second, st.cfg.ClientPingTimeout)
	t.Setenv("AGGREGATOR_PING_TIMEOUT", "20s")
	st, err = parseFlags(nil, io.Discard)
	require.NoError(t, err)
	assert.Equal(t, 20*time.Second, st.cfg.ClientPingTimeout, "from the environment")
	assert.Equal(t, 10*time.Second, st.cfg.ClientPingInterval, "the default")

	st, err = parseFlags([]string{"-retention-ms", "45000", "-history-ms", "60000"}, io.Discard)
	require.NoError(t, err)
	assert.Equal(t, 45*time.Second, st.cfg.Retention, "the old millisecond flags still work")
	assert.Equal(t, time.Minute, st.cfg.History)
}

func TestWorkersDefaultToTheCores(t *testing.T) {
	st, err := parseFlags(nil, io.Discard)
	require.NoError(t, err)
	assert.Equal(t, max(1, runtime.GOMAXPROCS(0)), st.cfg.Workers)
	st, err = parseFlags([]string{"-workers", "3"}, io.Discard)
	require.NoError(t, err)
	assert.Equal(t, 3, st.cfg.Workers)
}

func TestHelpIsNotAnError(t *testing.T) {
	var usage strings.Builder
	err := run(context.Background(), []string{"-help"}, io.Discard, &usage)
	assert.ErrorIs(t, err, flag.ErrHelp, "main exits 0 on it")
	assert.Contains(t, usage.String(), "-retention duration")
	assert.Contains(t, usage.String(), "(env PRODUCER_URL)")
}

func TestABusyPortIsExplained(t *testing.T) {
	p, err := producer.Start(producer.Config{GRPCAddr: "127.0.0.1:0", Hosts: 1, EventsPerSec: 1})
	require.NoError(t, err)
	defer p.Stop()
	_, port, _ := net.SplitHostPort(p.GRPCAddr())
	err = run(context.Background(), []string{"-grpc-port", port, "-addr", "127.0.0.1:0"}, io.Discard, io.Discard)
	require.Error(t, err)
	assert.Regexp(t, `^embedded producer: listen tcp 127\.0\.0\.1:\d+: bind: address already in use \(choose another -grpc-port, or 0 for a free one\)$`, err.Error())
}

// TestOriginsTakeSpacesAfterCommas: -origins "a.example, b.example" lets
// a page from either origin open the WebSockets. (The second pattern kept
// its leading space, matched no origin, and its page got a 403.)
func TestOriginsTakeSpacesAfterCommas(t *testing.T) {
	st, err := parseFlags([]string{"-origins", "a.example, b.example"}, io.Discard)
	require.NoError(t, err)
	agg, err := aggregator.New(st.cfg)
	require.NoError(t, err)
	srv := httptest.NewServer(agg.Handler())
	t.Cleanup(func() {
		agg.Close()
		srv.Close()
	})
	for _, origin := range []string{"http://a.example", "http://b.example"} {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		conn, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(srv.URL, "http")+"/live-agg",
			&websocket.DialOptions{HTTPHeader: http.Header{"Origin": {origin}}})
		cancel()
		if assert.NoError(t, err, "origin %s", origin) {
			conn.CloseNow()
		}
	}
}

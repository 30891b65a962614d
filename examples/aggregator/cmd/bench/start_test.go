package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A child that exits before its ready line fails its start at once, with
// what it wrote: the error says it exited, not that 15 s passed without a
// ready line.
func TestAChildThatExitsBeforeItsReadyLineFailsAtOnce(t *testing.T) {
	ready := regexp.MustCompile("listening on")
	_, err := start("agg", `sh -c 'echo "aggregator: bind: address already in use" >&2; exit 1'`, nil, ready, filepath.Join(t.TempDir(), "agg.stderr"))
	require.Error(t, err, "the start of a child that exited")
	assert.Contains(t, err.Error(), "exited before its ready line")
	assert.True(t, addrInUse(err), "the error carries the child's output: %v", err)
}

// A child that finds its port taken is started again, the producer with
// it, on new ports: the aggregator here fails its first start as a taken
// port makes it fail, and succeeds on the second.
func TestAStartOnATakenPortIsTriedAgain(t *testing.T) {
	dir := t.TempDir()
	mark := filepath.Join(dir, "tried")
	agg := `sh -c 'if [ -e ` + mark + ` ]; then echo "aggregator listening on :$AGGREGATOR_PORT"; exec sleep 60; fi; touch ` + mark + `; echo "listen tcp 127.0.0.1:$AGGREGATOR_PORT: bind: address already in use" >&2; exit 1'`
	r := &runner{
		logs:      dir,
		producer:  `sh -c 'echo "producer listening on $GRPC_PORT"; exec sleep 60'`,
		aggReady:  regexp.MustCompile("aggregator listening on"),
		prodReady: regexp.MustCompile("producer listening on"),
	}
	prod, a, _, aport, err := r.startBoth(aggSpec{name: "agg", cmd: agg}, 10, 1, 1)
	require.NoError(t, err, "the second start")
	defer prod.stop()
	defer a.stop()
	_, err = os.Stat(mark)
	require.NoError(t, err, "the aggregator's first start did not run")
	assert.True(t, strings.HasSuffix(a.ready, ":"+strconv.Itoa(aport)), "ready line %q, want it on port %d", a.ready, aport)
}

// Any other failure is not tried again.
func TestAStartThatFailsOtherwiseIsNotTriedAgain(t *testing.T) {
	dir := t.TempDir()
	count := filepath.Join(dir, "count")
	r := &runner{
		logs:      dir,
		producer:  `sh -c 'echo "producer listening"; exec sleep 60'`,
		aggReady:  regexp.MustCompile("aggregator listening on"),
		prodReady: regexp.MustCompile("producer listening"),
	}
	_, _, _, _, err := r.startBoth(aggSpec{name: "agg", cmd: `sh -c 'echo x >> ` + count + `; echo "no such flag" >&2; exit 2'`}, 10, 1, 1)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "no such flag")
	data, err := os.ReadFile(count)
	require.NoError(t, err)
	assert.Equal(t, 1, strings.Count(string(data), "x"), "times the aggregator was started")
}

// A child that prints its ready line and exits at once has still started:
// its exit does not hide the line, even when start sees both together.
func TestAReadyLineBeforeTheExitIsAStart(t *testing.T) {
	beforeSelect = func(exited <-chan struct{}) { <-exited }
	defer func() { beforeSelect = nil }()
	ready := regexp.MustCompile("listening on")
	for range 10 {
		p, err := start("agg", `sh -c 'echo "aggregator listening on :1"'`, nil, ready, filepath.Join(t.TempDir(), "agg.stderr"))
		require.NoError(t, err)
		p.stop()
	}
}

package main

import (
	"bufio"
	"bytes"
	"context"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/pond-go/pond/examples/cluster/internal/brokers"
	"github.com/pond-go/pond/examples/cluster/internal/rows"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestKcatReadsTheOutputTopic: Debian's kcat, a librdkafka client, reads
// metrics-agg from the embedded cluster read-committed, and every row it
// prints parses, with its boundary header: the topic is real Kafka data.
func TestKcatReadsTheOutputTopic(t *testing.T) {
	kcat, err := exec.LookPath("kcat")
	if err != nil {
		t.Skip("kcat is not installed (apt-get install kcat)")
	}
	seeds := startKafka(t)
	st := testStream(t)
	const ticks = 30
	_, _, produced := startProducer(t, seeds, st, ticks, nil)
	startWorker(t, seeds, "interop")
	require.NoError(t, <-produced)
	waitConsumed(t, seeds, st.Time(ticks-1).UnixMilli(), 30*time.Second)
	want := committedRows(t, seeds)
	require.NotEmpty(t, want)

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, kcat, "-C", "-b", strings.Join(seeds, ","), "-t", brokers.Output,
		"-X", "isolation.level=read_committed", "-o", "beginning", "-e", "-q",
		"-f", "%h\t%s\n")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(t, err, "kcat: %s", stderr.String())
	got := map[rows.Key]bool{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		hdr, val, ok := strings.Cut(sc.Text(), "\t")
		require.True(t, ok, "line %q", sc.Text())
		r, err := rows.Decode([]byte(val))
		require.NoError(t, err)
		assert.Contains(t, hdr, rows.HeaderBoundary+"=")
		got[r.Key()] = true
	}
	assert.Equal(t, keySet(want), got)
}

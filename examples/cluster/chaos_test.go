package main

import (
	"testing"
	"time"

	"github.com/pond-go/pond/examples/cluster/internal/events"
	"github.com/pond-go/pond/examples/cluster/internal/producer"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestChaosGivesTheGoldenRows: three workers on the fixed stream while
// one is killed without a clean leave, a new one joins, another leaves
// (a forced rebalance) and the producer is killed mid-stream and
// restarted → the committed rows are the golden ones: same keys, no
// duplicates, no gaps, every value bit for bit.
func TestChaosGivesTheGoldenRows(t *testing.T) {
	seeds := startKafka(t)
	st := testStream(t)
	golden := goldenRows(t)

	pks := &killSwitch{}
	prod, cancelProd, produced := startPacedProducer(t, seeds, st, pks)
	w1 := startWorker(t, seeds, "w1")
	w2 := startWorker(t, seeds, "w2")
	w3 := startWorker(t, seeds, "w3")
	_ = w1

	step := func(at int64, what string, f func()) {
		waitTick(t, prod, st, at)
		t.Logf("%s at tick %d", what, prod.Stats().NextTick)
		f()
	}
	var crashed time.Time
	step(150, "kill w2", func() { crashed = time.Now(); w2.crash(t) })
	step(250, "start w4", func() { startWorker(t, seeds, "w4") })
	step(350, "kill the producer", func() {
		pks.kill() // no EndTxn reaches the broker
		cancelProd()
		prod.Kill() // fail the records buffered for the dead connections
		<-produced
		prod, _, produced = startPacedProducer(t, seeds, st, nil)
		t.Logf("producer restarted at tick %d", prod.Stats().NextTick)
	})
	step(500, "rebalance: w3 leaves, w5 joins", func() {
		w3.stop(t)
		startWorker(t, seeds, "w5")
	})
	require.NoError(t, <-produced)
	waitConsumed(t, seeds, st.Time(testTicks-1).UnixMilli(), 90*time.Second)
	// The crashed w2 could not end its last transaction: the coordinator
	// aborts it when its timeout runs out, at the latest txnTimeout after
	// the crash. Any other still open is a live or stopped worker's.
	time.Sleep(time.Until(crashed.Add(txnTimeout)))
	got := committedRows(t, seeds)
	t.Logf("chaos: %d rows, digest %s (golden %s)", len(got), digest(got), digest(golden))
	assert.Equal(t, keySet(golden), keySet(got))
	if !assertSameRows(t, golden, got) {
		t.Log("against the per-partition oracle of this run's own input:")
		assertSameRows(t, perPartitionOracle(t, seeds), got)
	}
}

// startPacedProducer sends the test stream at 10 ms of wall time per tick
// (8 s in all), so faults land mid-stream.
func startPacedProducer(t testing.TB, seeds []string, st *events.Stream, ks *killSwitch) (*producer.Producer, func(), chan error) {
	return startProducerWith(t, seeds, st, testTicks, ks, true, 10*time.Millisecond)
}

// waitTick waits until the producer has sent tick k.
func waitTick(t testing.TB, p *producer.Producer, st *events.Stream, k int64) {
	deadline := time.Now().Add(30 * time.Second)
	for p.Stats().NextTick < k {
		if time.Now().After(deadline) {
			t.Fatalf("producer stuck at tick %d", p.Stats().NextTick)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

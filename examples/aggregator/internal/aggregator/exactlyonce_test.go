package aggregator

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestClientsSeeEveryBatchExactlyOnce connects clients while batches are
// being pushed and checks that each one's snapshot followed by its appends
// is exactly the stream from where its snapshot starts: no duplicate, no
// gap, on /live and on /live-agg.
func TestClientsSeeEveryBatchExactlyOnce(t *testing.T) {
	a := newTestAggregator(t, Config{Logger: quietLogger, Retention: 10 * time.Second})
	base, _ := serve(t, a)
	const batches, hosts = 600, 3
	type key struct {
		ms   int64
		host string
	}
	var all []key // every row pushed, in order
	for k := range batches {
		for h := range hosts {
			all = append(all, key{t0.Add(time.Duration(k) * 50 * time.Millisecond).UnixMilli(), fmt.Sprintf("h%d", h)})
		}
	}
	last := all[len(all)-1]

	var wg sync.WaitGroup
	results := make(chan func(), 16)
	connectAt := []int{0, 37, 150, 151, 333, 598}
	started := make(chan struct{}, len(connectAt))
	push := func(from, to int) {
		for k := from; k < to; k++ {
			var rows []row
			for h := range hosts {
				rows = append(rows, row{time.Duration(k) * 50 * time.Millisecond, 0.5 + 0.01*float64(h), float64(k), fmt.Sprintf("h%d", h)})
			}
			require.NoError(t, a.Push(batchOf(rows...), time.Now()))
		}
	}
	pushed := make(chan struct{})
	go func() {
		defer close(pushed)
		prev := 0
		for _, at := range connectAt {
			push(prev, at)
			prev = at
			// Let a client connect mid-stream, racing the next pushes.
			wg.Add(2)
			go func() {
				defer wg.Done()
				c := dial(t, base+"/live")
				started <- struct{}{}
				var got []key
				for {
					f := c.next()
					for _, r := range f.RawRows {
						got = append(got, key{r.TimeMs, r.Host})
					}
					if n := len(got); n > 0 && got[n-1] == last {
						break
					}
				}
				results <- func() {
					require.NotEmpty(t, got)
					i := 0
					for i < len(all) && all[i] != got[0] {
						i++
					}
					assert.Equal(t, all[i:], got, "/live client connected near batch %d", at)
				}
			}()
			go func() {
				defer wg.Done()
				c := dial(t, base+"/live-agg")
				started <- struct{}{}
				var ticks []int64
				seen := map[key]int{}
				lastTick := t0.Add(time.Duration(batches-1) * 50 * time.Millisecond).Truncate(200 * time.Millisecond).UnixMilli()
				for {
					f := c.next()
					for _, r := range f.Rows {
						seen[key{r.TS, r.Host}]++
						if n := len(ticks); n == 0 || ticks[n-1] != r.TS {
							ticks = append(ticks, r.TS)
						}
					}
					if n := len(ticks); n > 0 && ticks[n-1] == lastTick {
						break
					}
				}
				results <- func() {
					var want []int64
					for _, tk := range a.hist.all() {
						want = append(want, tk.globals.TS)
						for _, r := range tk.rows {
							assert.Equal(t, 1, seen[key{r.TS, r.Host}], "/live-agg row %d %s once", r.TS, r.Host)
						}
					}
					assert.Equal(t, want, ticks, "/live-agg client connected near batch %d: every tick once, in order", at)
				}
			}()
			<-started
			<-started
		}
		push(prev, batches)
	}()
	done := make(chan struct{})
	go func() { <-pushed; wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(2 * time.Minute):
		t.Fatal("clients did not receive the whole stream")
	}
	close(results)
	a.mu.Lock()
	defer a.mu.Unlock()
	assert.Len(t, a.hist.all(), int((batches-1)*50/200), "history holds every tick")
	for check := range results {
		check()
	}
	assert.EqualValues(t, 0, a.m.slowDisconnects.Load())
}

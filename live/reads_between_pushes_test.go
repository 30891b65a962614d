package live_test

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/pond-go/pond/live"
	"github.com/pond-go/pond/reduce"
	"github.com/pond-go/pond/rolling"
	"github.com/pond-go/pond/schema"
	"github.com/pond-go/pond/sequence"
	"github.com/pond-go/pond/trigger"
)

// Output tables stay valid until the next push: reading every node
// (snapshots, values, bytes, partitions, descriptions) and building nodes
// on them, which replays what they hold, leave the last push's tables as
// they were.
func TestReadsAndBuildsBetweenPushesKeepThePushsOutputs(t *testing.T) {
	for seed := range uint64(60) {
		rng := rand.New(rand.NewPCG(seed, 4321))
		data := make([]byte, 600)
		for i := range data {
			c := byte(rng.IntN(160))
			if rng.IntN(60) == 0 {
				c = byte(rng.IntN(256))
			}
			data[i] = c
		}
		g := &fuzzGen{fuzzBytes: fuzzBytes{data}, now: int64(time.Hour), hosts: 8}
		cfg := byte(seed)
		p, err := buildPipelineViews(cfg, 1+int(seed%3))
		if err != nil {
			t.Fatal(err)
		}
		var out []live.Output
		for push := 0; len(g.data) > 0 && push < 40; push++ {
			mode := g.next()
			rows := make([]schema.Row, g.next()%12)
			for i := range rows {
				rows[i] = g.row()
			}
			fp := fuzzPush{rows: rows}
			if mode&1 != 0 {
				fp.batch = batch(rows, g.next())
			}
			out, err = fp.to(p.s, out[:0])
			if err != nil {
				continue
			}
			want := render(out)
			_ = p.state(true)
			for _, id := range p.nodes {
				_, _ = p.s.Describe(id)
				_, _ = p.s.NodeSchema(id)
			}
			if push%7 == 3 {
				k := p.nodes[rng.IntN(len(p.nodes))]
				switch rng.IntN(5) {
				case 0:
					_, _ = p.s.Filter(k, func(schema.Row) bool { return true })
				case 1:
					_, _ = p.s.Window(k, time.Second)
				case 2:
					sch, _ := p.s.NodeSchema(k)
					for j := 1; j < sch.Len(); j++ {
						if sch.Column(j).Kind == schema.Number {
							_, _ = p.s.Aggregate(k, sequence.Every(time.Second), []reduce.Agg{{Out: "x", From: sch.Column(j).Name, Using: reduce.Median}}, 0)
							_, _ = p.s.Cumulative(k, live.Running{Column: sch.Column(j).Name, Using: reduce.Sum})
							_, _ = p.s.Rolling(k, []rolling.Window{{Span: time.Second, Aggs: []reduce.Agg{{Out: "x", From: sch.Column(j).Name, Using: reduce.Avg}}}}, rolling.Options{Trigger: trigger.Clock(sequence.Every(300 * time.Millisecond))})
							break
						}
					}
				case 3:
					_, _ = p.s.Gather(k)
				case 4:
					_, _ = p.s.Reduce(k, []reduce.Agg{{Out: "n", From: "time", Using: reduce.Count}}, trigger.Event())
				}
			}
			if got := render(out); got != want {
				t.Fatalf("seed %d push %d: reads changed the outputs:\n%s\nwant\n%s", seed, push, got, want)
			}
		}
		p.s.Close()
	}
}

package live_test

import (
	"fmt"
	"strings"
	"time"

	"github.com/pond-go/pond/live"
	"github.com/pond-go/pond/partition"
	"github.com/pond-go/pond/reduce"
	"github.com/pond-go/pond/rolling"
	"github.com/pond-go/pond/schema"
	"github.com/pond-go/pond/sequence"
	"github.com/pond-go/pond/trigger"
)

func ExampleNew() {
	sch := schema.MustNew(
		schema.Column{Name: "time", Kind: schema.Time},
		schema.Column{Name: "cpu", Kind: schema.Number},
		schema.Column{Name: "host", Kind: schema.String},
	)
	// Keep the last three rows; drop rows older than the latest.
	s, err := live.New("metrics", sch, live.Options{MaxEvents: 3, Ordering: live.Drop})
	if err != nil {
		panic(err)
	}
	at := func(sec int64, cpu float64, host string) schema.Row {
		return schema.Row{schema.MillisValue(sec * 1000), schema.NumberValue(cpu), schema.StringValue(host)}
	}
	_, err = s.PushRows(nil, at(0, 0.5, "a"), at(1, 0.7, "b"), at(0, 0.9, "a"), at(2, 0.6, "a"), at(3, 0.4, "b"))
	fmt.Println(err)
	fmt.Printf("%+v\n", s.Stats())

	// A push is atomic: one bad cell rejects all of it.
	_, err = s.PushRows(nil, at(4, 0.1, "a"), schema.Row{schema.MillisValue(5000), schema.StringValue("high"), schema.StringValue("b")})
	fmt.Println(err)
	fmt.Printf("%+v\n", s.Stats())
	for _, row := range s.All() {
		fmt.Println(row)
	}
	// Output:
	// <nil>
	// {Ingested:4 Rejected:1 Evicted:1 Length:3}
	// schema: row 1 column 1 (cpu): wrong type: expected number, got string
	// {Ingested:4 Rejected:1 Evicted:1 Length:3}
	// [1970-01-01T00:00:01Z 0.7 "b"]
	// [1970-01-01T00:00:02Z 0.6 "a"]
	// [1970-01-01T00:00:03Z 0.4 "b"]

}

func ExampleSeries_PushMany() {
	cpuSchema := schema.MustNew(
		schema.Column{Name: "time", Kind: schema.Time},
		schema.Column{Name: "cpu", Kind: schema.Number, Optional: true},
		schema.Column{Name: "host", Kind: schema.String},
	)
	// show prints the rows of a table, times in milliseconds.
	show := func(tab *schema.Table, err error) {
		if err != nil {
			panic(err)
		}
		for i := range tab.Len() {
			var b strings.Builder
			fmt.Fprintf(&b, "%dms", tab.TimeNanos(i)/int64(time.Millisecond))
			for j := 1; j < tab.Schema().Len(); j++ {
				fmt.Fprintf(&b, " %s=%s", tab.Schema().Column(j).Name, tab.Value(i, j))
			}
			fmt.Println(b.String())
		}
	}
	check := func(err error) {
		if err != nil {
			panic(err)
		}
	}
	s, err := live.New("metrics", cpuSchema, live.Options{MaxEvents: 2})
	check(err)
	avg, err := s.Rolling(s.Root(), []rolling.Window{{Span: time.Second, Aggs: []reduce.Agg{
		{Out: "avg", From: "cpu", Using: reduce.Avg},
	}}}, rolling.Options{})
	check(err)
	// Watch order does not matter: outputs come as every Event output in
	// build order (the root, then the rolling), then Batch, then Evict.
	_ = s.Watch(avg)
	_ = s.Watch(s.Root(), live.Evict, live.Event)

	// A columnar batch, filled in place and reused from push to push.
	b := schema.NewBatch(cpuSchema, 3)
	var out []live.Output
	for _, push := range []struct {
		ms  []int64
		cpu []float64
	}{
		{[]int64{0, 500, 1000}, []float64{0.25, 0.5, 0.75}},
		{[]int64{1500}, []float64{1}},
	} {
		b.Reset()
		for i, t := range push.ms {
			b.Time = append(b.Time, t*int64(time.Millisecond))
			b.Cols[0].Num = append(b.Cols[0].Num, push.cpu[i])
			b.Cols[1].Str = append(b.Cols[1].Str, "a")
		}
		var err error
		out, err = s.PushMany(out[:0], b)
		if err != nil {
			panic(err)
		}
		for _, o := range out {
			fmt.Printf("node %d %s:\n", o.Node, o.Kind)
			show(o.Events, nil)
		}
	}
	// Output:
	// node 0 event:
	// 0ms cpu=0.25 host="a"
	// 500ms cpu=0.5 host="a"
	// 1000ms cpu=0.75 host="a"
	// node 1 event:
	// 0ms avg=0.25
	// 500ms avg=0.375
	// 1000ms avg=0.5
	// node 0 evict:
	// 0ms cpu=0.25 host="a"
	// node 0 event:
	// 1500ms cpu=1 host="a"
	// node 1 event:
	// 1500ms avg=0.75
	// node 0 evict:
	// 500ms cpu=0.5 host="a"

}

func ExampleSeries_Rolling() {
	cpuSchema := schema.MustNew(
		schema.Column{Name: "time", Kind: schema.Time},
		schema.Column{Name: "cpu", Kind: schema.Number, Optional: true},
		schema.Column{Name: "host", Kind: schema.String},
	)
	// cpu is a row at t milliseconds; a negative reading is missing.
	cpu := func(t int64, x float64, host string) schema.Row {
		v := schema.NumberValue(x)
		if x < 0 {
			v = schema.Missing()
		}
		return schema.Row{schema.MillisValue(t), v, schema.StringValue(host)}
	}
	// show prints the rows of a table, times in milliseconds.
	show := func(tab *schema.Table, err error) {
		if err != nil {
			panic(err)
		}
		for i := range tab.Len() {
			var b strings.Builder
			fmt.Fprintf(&b, "%dms", tab.TimeNanos(i)/int64(time.Millisecond))
			for j := 1; j < tab.Schema().Len(); j++ {
				fmt.Fprintf(&b, " %s=%s", tab.Schema().Column(j).Name, tab.Value(i, j))
			}
			fmt.Println(b.String())
		}
	}
	// push pushes rows and prints what node emitted.
	push := func(s *live.Series, node live.NodeID, rows ...schema.Row) {
		out, err := s.PushRows(nil, rows...)
		if err != nil {
			fmt.Println("error:", err)
			return
		}
		tab, _ := live.Find(out, node, live.Event)
		show(tab, nil)
	}
	check := func(err error) {
		if err != nil {
			panic(err)
		}
	}
	s, err := live.New("metrics", cpuSchema, live.Options{})
	check(err)
	avg, err := s.Rolling(s.Root(), []rolling.Window{{Span: time.Minute, Aggs: []reduce.Agg{
		{Out: "avg", From: "cpu", Using: reduce.Avg},
		{Out: "n", From: "cpu", Using: reduce.Count},
	}}}, rolling.Options{}) // the zero Options: one row per source row
	check(err)
	_ = s.Watch(avg)
	// The window at t holds [t − 1m, t]: the row at 0 is still in at 60s
	// and gone at 61s. A missing reading is a row, not a value.
	push(s, avg, cpu(0, 0.25, "a"), cpu(30_000, 0.5, "b"), cpu(45_000, -1, "a"))
	push(s, avg, cpu(60_000, 0.75, "b"), cpu(61_000, 1, "a"))
	// Output:
	// 0ms avg=0.25 n=1
	// 30000ms avg=0.375 n=2
	// 45000ms avg=0.375 n=2
	// 60000ms avg=0.5 n=3
	// 61000ms avg=0.75 n=3

}

func ExampleSeries_Rolling_clock() {
	cpuSchema := schema.MustNew(
		schema.Column{Name: "time", Kind: schema.Time},
		schema.Column{Name: "cpu", Kind: schema.Number, Optional: true},
		schema.Column{Name: "host", Kind: schema.String},
	)
	// cpu is a row at t milliseconds; a negative reading is missing.
	cpu := func(t int64, x float64, host string) schema.Row {
		v := schema.NumberValue(x)
		if x < 0 {
			v = schema.Missing()
		}
		return schema.Row{schema.MillisValue(t), v, schema.StringValue(host)}
	}
	check := func(err error) {
		if err != nil {
			panic(err)
		}
	}
	s, err := live.New("metrics", cpuSchema, live.Options{MaxAge: time.Minute})
	check(err)
	byHost, err := s.PartitionBy(s.Root(), "host", partition.Options{MaxEvents: 1})
	check(err)
	hosts, err := s.Rolling(byHost, []rolling.Window{
		{Name: "1m", Span: time.Minute, Aggs: []reduce.Agg{
			{Out: "cpu_avg", From: "cpu", Using: reduce.Avg},
		}},
		{Name: "1s", Span: time.Second, Aggs: []reduce.Agg{
			{Out: "cpu_max", From: "cpu", Using: reduce.Max},
		}},
	}, rolling.Options{Trigger: trigger.Clock(sequence.Every(time.Second))})
	check(err)
	_ = s.Watch(hosts)

	var out []live.Output
	for _, rows := range [][]schema.Row{
		{cpu(0, 0.5, "a"), cpu(200, 0.25, "b")},
		// 1000 crosses the boundary at 1s: every host known then gets a
		// row keyed at 1000, with a's row at 1000 already in and the
		// windows evicted against 1000. b's row at the same time comes
		// after the tick and shows at the next one.
		{cpu(1000, 0.75, "a"), cpu(1000, 0.5, "b"), cpu(1500, 0.375, "c")},
		// 3200 skips the boundary at 2s: one tick, keyed at 3000.
		{cpu(3200, 0.75, "b")},
	} {
		var err error
		out, err = s.PushRows(out[:0], rows...)
		check(err)
		for _, o := range out {
			for run := range o.Events.Runs() {
				fmt.Printf("tick %dms:\n", run.Time/int64(time.Millisecond))
				for i := run.From; i < run.To; i++ {
					fmt.Printf("  %s %s %s\n", o.Events.Value(i, 1), o.Events.Value(i, 2), o.Events.Value(i, 3))
				}
			}
		}
	}
	// Output:
	// tick 1000ms:
	//   "a" 0.625 0.75
	//   "b" 0.25 0.25
	// tick 3000ms:
	//   "a" 0.625 null
	//   "b" 0.5 0.75
	//   "c" 0.375 null

}

func ExampleSeries_PartitionBy() {
	cpuSchema := schema.MustNew(
		schema.Column{Name: "time", Kind: schema.Time},
		schema.Column{Name: "cpu", Kind: schema.Number, Optional: true},
		schema.Column{Name: "host", Kind: schema.String},
	)
	// cpu is a row at t milliseconds; a negative reading is missing.
	cpu := func(t int64, x float64, host string) schema.Row {
		v := schema.NumberValue(x)
		if x < 0 {
			v = schema.Missing()
		}
		return schema.Row{schema.MillisValue(t), v, schema.StringValue(host)}
	}
	// show prints the rows of a table, times in milliseconds.
	show := func(tab *schema.Table, err error) {
		if err != nil {
			panic(err)
		}
		for i := range tab.Len() {
			var b strings.Builder
			fmt.Fprintf(&b, "%dms", tab.TimeNanos(i)/int64(time.Millisecond))
			for j := 1; j < tab.Schema().Len(); j++ {
				fmt.Fprintf(&b, " %s=%s", tab.Schema().Column(j).Name, tab.Value(i, j))
			}
			fmt.Println(b.String())
		}
	}
	check := func(err error) {
		if err != nil {
			panic(err)
		}
	}
	s, err := live.New("metrics", cpuSchema, live.Options{})
	check(err)
	// Each host keeps its own last two rows; at most three hosts.
	byHost, err := s.PartitionBy(s.Root(), "host", partition.Options{MaxEvents: 2, MaxPartitions: 3})
	check(err)
	sums, err := s.Rolling(byHost, []rolling.Window{{Count: 2, Aggs: []reduce.Agg{
		{Out: "sum", From: "cpu", Using: reduce.Sum},
	}}}, rolling.Options{})
	check(err)
	_ = s.Watch(sums)
	_ = s.Watch(byHost, live.Evict)

	out, err := s.PushRows(nil, cpu(0, 0.5, "a"), cpu(0, 0.25, "b"), cpu(1000, 0.5, "a"), cpu(2000, 1, "a"))
	check(err)
	for _, o := range out {
		fmt.Printf("node %d %s:\n", o.Node, o.Kind)
		show(o.Events, nil)
	}
	fmt.Println("held:")
	show(s.Snapshot(byHost))

	_, err = s.PushRows(nil, cpu(3000, 0.1, "c"), cpu(3000, 0.1, "d"))
	fmt.Println(err)
	// Output:
	// node 2 event:
	// 0ms host="a" sum=0.5
	// 0ms host="b" sum=0.25
	// 1000ms host="a" sum=1
	// 2000ms host="a" sum=1.5
	// node 1 evict:
	// 0ms cpu=0.5 host="a"
	// held:
	// 0ms cpu=0.25 host="b"
	// 1000ms cpu=0.5 host="a"
	// 2000ms cpu=1 host="a"
	// partition: row 1: key "d" of column "host" would make more than 3 partitions

}

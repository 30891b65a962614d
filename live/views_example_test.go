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

func ExampleSeries_Filter() {
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
	s, err := live.New("metrics", cpuSchema, live.Options{MaxEvents: 3})
	check(err)
	busy, err := s.Filter(s.Root(), func(row schema.Row) bool {
		x, ok := row[1].Num()
		return ok && x > 0.5
	})
	check(err)
	_ = s.Watch(busy)
	push(s, busy, cpu(0, 0.9, "a"), cpu(1000, 0.2, "b"), cpu(2000, 0.7, "a"))
	push(s, busy, cpu(3000, 0.1, "b"))
	// The root evicted 0ms, and so did the filter.
	show(s.Snapshot(busy))
	// Output:
	// 0ms cpu=0.9 host="a"
	// 2000ms cpu=0.7 host="a"
	// 2000ms cpu=0.7 host="a"
}

func ExampleSeries_Map() {
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
	pct := schema.MustNew(
		schema.Column{Name: "time", Kind: schema.Time},
		schema.Column{Name: "percent", Kind: schema.Number, Optional: true},
	)
	s, err := live.New("metrics", cpuSchema, live.Options{})
	check(err)
	m, err := s.Map(s.Root(), pct, func(in, out schema.Row) bool {
		if x, ok := in[1].Num(); ok {
			out[1] = schema.NumberValue(100 * x)
		}
		return true
	})
	check(err)
	_ = s.Watch(m)
	push(s, m, cpu(0, 0.25, "a"), cpu(1000, -1, "a"))
	// Output:
	// 0ms percent=25
	// 1000ms percent=null
}

func ExampleSeries_Select() {
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
	hosts, err := s.Select(s.Root(), "host")
	check(err)
	_ = s.Watch(hosts)
	push(s, hosts, cpu(0, 0.25, "a"), cpu(1000, 0.5, "b"))
	// Output:
	// 0ms host="a"
	// 1000ms host="b"
}

func ExampleSeries_Window() {
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
	last2s, err := s.Window(s.Root(), 2*time.Second)
	check(err)
	avg, err := s.Reduce(last2s, []reduce.Agg{{Out: "avg", From: "cpu", Using: reduce.Avg}}, trigger.Event())
	check(err)
	_ = s.Watch(avg)
	_ = s.Watch(last2s, live.Evict)
	out, _ := s.PushRows(nil, cpu(0, 0.1, "a"), cpu(1000, 0.2, "a"), cpu(3000, 0.6, "a"))
	for _, o := range out {
		fmt.Println(o.Kind)
		show(o.Events, nil)
	}
	// Output:
	// event
	// 3000ms avg=0.4
	// evict
	// 0ms cpu=0.1 host="a"
}

func ExampleSeries_WindowCount() {
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
	last2, err := s.WindowCount(s.Root(), 2)
	check(err)
	sum, err := s.Reduce(last2, []reduce.Agg{{Out: "sum", From: "cpu", Using: reduce.Sum}}, trigger.Event())
	check(err)
	_ = s.Watch(sum)
	for i, x := range []float64{1, 10, 100} {
		push(s, sum, cpu(int64(i*1000), x, "a"))
	}
	// Output:
	// 0ms sum=1
	// 1000ms sum=11
	// 2000ms sum=110
}

func ExampleSeries_Diff() {
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
	d, err := s.Diff(s.Root(), "cpu")
	check(err)
	_ = s.Watch(d)
	push(s, d, cpu(0, 0.5, "a"), cpu(1000, 0.75, "a"), cpu(2000, -1, "a"), cpu(3000, 0.5, "a"))
	// Output:
	// 0ms cpu=null host="a"
	// 1000ms cpu=0.25 host="a"
	// 2000ms cpu=null host="a"
	// 3000ms cpu=null host="a"
}

func ExampleSeries_Rate() {
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
	rate, err := s.Rate(s.Root(), "cpu")
	check(err)
	_ = s.Watch(rate)
	push(s, rate, cpu(1000, 10, "a"), cpu(3000, 30, "a"), cpu(3500, 20, "a"))
	// Output:
	// 1000ms cpu=null host="a"
	// 3000ms cpu=10 host="a"
	// 3500ms cpu=-20 host="a"
}

func ExampleSeries_PctChange() {
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
	pct, err := s.PctChange(s.Root(), "cpu")
	check(err)
	_ = s.Watch(pct)
	push(s, pct, cpu(0, 0.5, "a"), cpu(1000, 0.75, "a"), cpu(2000, 0.375, "a"))
	// Output:
	// 0ms cpu=null host="a"
	// 1000ms cpu=0.5 host="a"
	// 2000ms cpu=-0.5 host="a"
}

func ExampleSeries_Fill() {
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
	held, err := s.Fill(s.Root(), live.FillOptions{Strategy: live.FillHold, Limit: 2})
	check(err)
	_ = s.Watch(held)
	push(s, held, cpu(0, 0.5, "a"), cpu(1000, -1, "a"), cpu(2000, -1, "a"), cpu(3000, -1, "a"))
	// Output:
	// 0ms cpu=0.5 host="a"
	// 1000ms cpu=0.5 host="a"
	// 2000ms cpu=0.5 host="a"
	// 3000ms cpu=null host="a"
}

func ExampleSeries_Cumulative() {
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
	total, err := s.Cumulative(s.Root(), live.Running{Column: "cpu", Using: reduce.Sum})
	check(err)
	_ = s.Watch(total)
	push(s, total, cpu(0, -1, "a"), cpu(1000, 2, "a"), cpu(2000, -1, "a"), cpu(3000, 3, "a"))
	// Output:
	// 0ms cpu=null host="a"
	// 1000ms cpu=2 host="a"
	// 2000ms cpu=2 host="a"
	// 3000ms cpu=5 host="a"
}

func ExampleSeries_Sample() {
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
	byHost, err := s.PartitionBy(s.Root(), "host", partition.Options{MaxEvents: 1})
	check(err)
	every2nd, err := s.Sample(byHost, 2)
	check(err)
	_ = s.Watch(every2nd)
	push(s, every2nd, cpu(0, 1, "a"), cpu(0, 10, "b"), cpu(1000, 2, "a"), cpu(2000, 3, "a"), cpu(2000, 20, "b"))
	// Output:
	// 1000ms cpu=2 host="a"
	// 2000ms cpu=20 host="b"
}

func ExampleSeries_Reduce() {
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
	s, err := live.New("metrics", cpuSchema, live.Options{MaxEvents: 2})
	check(err)
	stats, err := s.Reduce(s.Root(), []reduce.Agg{
		{Out: "n", From: "cpu", Using: reduce.Count},
		{Out: "max", From: "cpu", Using: reduce.Max},
	}, trigger.Event())
	check(err)
	_ = s.Watch(stats)
	push(s, stats, cpu(0, 0.9, "a"), cpu(1000, 0.2, "b"))
	push(s, stats, cpu(2000, 0.4, "a")) // 0ms leaves the series: max drops
	// Output:
	// 1000ms n=2 max=0.9
	// 2000ms n=2 max=0.4
}

func ExampleSeries_Aggregate() {
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
	s, err := live.New("metrics", cpuSchema, live.Options{Ordering: live.Reorder})
	check(err)
	buckets, err := s.Aggregate(s.Root(), sequence.Every(5*time.Second), []reduce.Agg{
		{Out: "sum", From: "cpu", Using: reduce.Sum},
	}, 2*time.Second)
	check(err)
	_ = s.Watch(buckets)
	push(s, buckets, cpu(0, 1, "a"), cpu(4000, 2, "a"), cpu(6000, 4, "a"))
	push(s, buckets, cpu(4500, 8, "a")) // late, within grace: counts
	push(s, buckets, cpu(7000, 16, "a"))
	push(s, buckets, cpu(1000, 32, "a")) // too late: dropped
	st, _ := s.AggregateStats(buckets)
	fmt.Println("dropped:", st.Dropped)
	// Output:
	// 0ms sum=11
	// dropped: 1
}

func ExampleSeries_Snapshot() {
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
	s, err := live.New("metrics", cpuSchema, live.Options{MaxEvents: 3})
	check(err)
	_, _ = s.PushRows(nil, cpu(0, 0.1, "a"), cpu(1000, 0.2, "b"), cpu(2000, 0.3, "a"), cpu(3000, 0.4, "b"))
	snap, err := s.Snapshot(s.Root())
	check(err)
	cpus, _ := snap.Numbers("cpu")
	fmt.Println(snap.Len(), cpus)
	for i, row := range snap.All() {
		fmt.Println(i, row[2])
	}
	// Output:
	// 3 [0.2 0.3 0.4]
	// 0 "b"
	// 1 "a"
	// 2 "b"
}

func ExampleSeries_PerPartition() {
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
	byHost, err := s.PartitionBy(s.Root(), "host", partition.Options{MaxEvents: 1})
	check(err)
	steady, err := s.PerPartition(byHost, func(s *live.Series, p live.NodeID) (live.NodeID, error) {
		held, err := s.Fill(p, live.FillOptions{Strategy: live.FillHold})
		if err != nil {
			return 0, err
		}
		return s.Diff(held, "cpu")
	})
	check(err)
	roll, err := s.Rolling(steady, []rolling.Window{{Span: time.Minute, Aggs: []reduce.Agg{
		{Out: "moved", From: "cpu", Using: reduce.Sum},
	}}}, rolling.Options{Trigger: trigger.Clock(sequence.Every(time.Second))})
	check(err)
	_ = s.Watch(roll)
	push(s, roll, cpu(0, 0.5, "a"), cpu(0, 0.2, "b"), cpu(500, -1, "a"), cpu(500, 0.4, "b"))
	push(s, roll, cpu(1000, 0.6, "a"))
	// Output:
	// 1000ms host="a" moved=0.09999999999999998
	// 1000ms host="b" moved=0.2
}

func ExampleSeries_Gather() {
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
	byHost, err := s.PartitionBy(s.Root(), "host", partition.Options{})
	check(err)
	d, err := s.Diff(byHost, "cpu")
	check(err)
	all, err := s.Gather(d)
	check(err)
	_ = s.Watch(all)
	push(s, all, cpu(0, 0.5, "a"), cpu(0, 0.2, "b"), cpu(1000, 0.75, "a"), cpu(1000, 0.1, "b"))
	// Output:
	// 0ms cpu=null host="a"
	// 0ms cpu=null host="b"
	// 1000ms cpu=0.25 host="a"
	// 1000ms cpu=-0.1 host="b"
}

func ExampleFind() {
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
	s, err := live.New("metrics", cpuSchema, live.Options{})
	check(err)
	byHost, err := s.PartitionBy(s.Root(), "host", partition.Options{MaxEvents: 1})
	check(err)
	roll, err := s.Rolling(byHost, []rolling.Window{{Span: time.Minute, Aggs: []reduce.Agg{
		{Out: "max", From: "cpu", Using: reduce.Max},
	}}}, rolling.Options{Trigger: trigger.Clock(sequence.Every(time.Second))})
	check(err)
	_ = s.Watch(roll)
	_, _ = s.PushRows(nil, cpu(0, 0.5, "a"), cpu(0, 0.2, "b"))
	out, _ := s.PushRows(nil, cpu(1000, 0.7, "a"), cpu(2000, 0.1, "b"))
	// Columns are resolved once, when the pipeline is built: a misspelt
	// name is an error here, not a panic at the first tick.
	sch, err := s.NodeSchema(roll)
	check(err)
	host, err := sch.Ref("host", schema.String)
	check(err)
	peak, err := sch.Ref("max", schema.Number)
	check(err)
	// The rolling's rows of this push, one run of rows per tick.
	tab, ok := live.Find(out, roll, live.Event)
	if !ok {
		panic("the rolling emitted nothing")
	}
	for run := range tab.Runs() {
		fmt.Print(tab.Time(run.From).Format("15:04:05"))
		for i := run.From; i < run.To; i++ {
			h, _ := tab.Str(host, i)
			x, _ := tab.Num(peak, i)
			fmt.Printf(" %s=%v", h, x)
		}
		fmt.Println()
	}
	// Output:
	// 00:00:01 a=0.7 b=0.2
	// 00:00:02 a=0.7 b=0.2
}

func ExampleNewTyped() {
	// Metric is a row of a typed series.
	type Metric struct {
		At   time.Time `pond:"time"`
		CPU  float64   `pond:"cpu"`
		Host string    `pond:"host"`
	}
	check := func(err error) {
		if err != nil {
			panic(err)
		}
	}
	sch, err := schema.For[Metric]()
	check(err)
	s, err := live.New("metrics", sch, live.Options{})
	check(err)
	metrics, err := live.NewTyped[Metric](s)
	check(err)
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	_, err = metrics.Push(nil, []Metric{{t0, 0.5, "a"}, {t0.Add(time.Second), 0.7, "b"}})
	fmt.Println(sch, err)
	snap, err := s.Snapshot(s.Root())
	check(err)
	rows, _ := metrics.Codec().Decode(nil, snap)
	fmt.Printf("%+v\n", rows[1])
	// Output:
	// time:time, cpu:number, host:string <nil>
	// {At:2025-01-01 00:00:01 +0000 UTC CPU:0.7 Host:b}
}

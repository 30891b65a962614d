// Command bench races aggregators: for every hosts × events/s
// cell of the sweep it starts a fresh producer and a fresh aggregator as
// child processes, waits for their ready lines, opens WebSocket probes on
// /live and /live-agg, warms up, then reads the aggregator's /metrics and
// /proc once a second over the measured window, and prints a table of
// rows/s taken, CPU cores, RSS, Go heap, dropped rows/s (from the
// producer's /metrics) and batchDone p50/p99.
//
//	go run ./examples/aggregator/cmd/bench -hosts 1000 -rates 100,1000 -seconds 30 -rounds 2
//
// By default it builds this example's producer and aggregator. -agg
// name=command (repeatable) races other aggregators that serve the same
// endpoints and read AGGREGATOR_PORT and PRODUCER_URL from the
// environment (the Node and Rust aggregators of the seed article do);
// rounds alternate between them. -producer swaps the producer the same
// way (it must read GRPC_PORT, METRICS_PORT, HOST_COUNT and
// EVENTS_PER_SEC, and serve JSON /metrics with dropped_rows_total).
// Results are printed and, with -out, appended to a file under -label; a
// file is never overwritten.
//
// -ceiling measures the highest load an aggregator takes: one host count
// (default 1000) at each of -rates in turn (default 1000, 2000, 4000 and
// 8000 events/s per host, i.e. 1 M to 8 M rows/s), each level warmed up
// past the aggregator's longest window, the per-host 1m, (default 65 s)
// and measured,
// stopping at the first level that drops a row. It reports the highest
// rate taken with nothing dropped, its batchDone p99 and the aggregator's
// CPU cores, with the machine's load average, and for each level the
// producer's drops in bursts (its counter read every 100 ms: a few short
// bursts are stalls, drops in nearly every reading an aggregator too slow
// for the load) and its batches queued behind half a queue or more (how
// near a level that dropped nothing came to dropping). A level that is taken
// holds its 30 s window in memory, about 2 GB per million rows/s here.
//
//	go run ./examples/aggregator/cmd/bench -ceiling -out examples/aggregator/BENCH.md
//
// Arguments after the flags (after --) are passed to every aggregator
// command, so one build is measured with its own settings; with several
// -agg, each climbs on its own, side by side (at each level every
// aggregator still climbing runs in turn):
//
//	go run ./examples/aggregator/cmd/bench -ceiling -- -workers 2
//	go run ./examples/aggregator/cmd/bench -ceiling -agg w1='/tmp/aggregator -workers 1' -agg w2='/tmp/aggregator -workers 2'
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/coder/websocket"
	"github.com/prometheus/procfs"
)

type aggSpec struct{ name, cmd string }

type aggFlags []aggSpec

func (a *aggFlags) String() string { return fmt.Sprint(*a) }
func (a *aggFlags) Set(s string) error {
	name, cmd, ok := strings.Cut(s, "=")
	if !ok || name == "" || cmd == "" {
		return fmt.Errorf("want name=command, got %q", s)
	}
	*a = append(*a, aggSpec{name, cmd})
	return nil
}

func main() {
	var aggs aggFlags
	flag.Var(&aggs, "agg", "aggregator to race, as name=shell command (repeatable; default: this example)")
	producerCmd := flag.String("producer", "", "producer shell command (default: this example's producer)")
	hostsList := flag.String("hosts", "10,100,1000", "comma-separated host counts")
	ratesList := flag.String("rates", "1,10,100,1000", "comma-separated events per second per host")
	warmup := flag.Duration("warmup", 5*time.Second, "warm-up before measuring")
	seconds := flag.Float64("seconds", 30, "measured seconds per cell")
	rounds := flag.Int("rounds", 1, "rounds; aggregators alternate within each round")
	probes := flag.String("probe", "live,live-agg", "WebSocket endpoints to hold open during a run (comma-separated; empty for none)")
	aggReady := flag.String("agg-ready", `aggregator listening on`, "regexp of the aggregator's ready line")
	prodReady := flag.String("producer-ready", `producer listening on`, "regexp of the producer's ready line")
	out := flag.String("out", "", "append the markdown table to this file")
	race := flag.Bool("race", false, "build this example's producer and aggregator with -race")
	logs := flag.String("logs", "", "directory for each child's stderr (default: a new directory under $TMPDIR, printed)")
	label := flag.String("label", "", "heading of the appended table (default: the date)")
	ceiling := flag.Bool("ceiling", false, "climb one host count through -rates, lowest first, until a level drops rows; report the highest rate taken with nothing dropped")
	flag.Parse()
	extra := flag.Args()
	check(checkRun(*seconds, *rounds))
	if *ceiling {
		set := map[string]bool{}
		flag.Visit(func(f *flag.Flag) { set[f.Name] = true })
		check(ceilingDefaults(set, hostsList, ratesList, warmup, *rounds))
	}

	hosts, err := ints(*hostsList)
	check(err)
	rates, err := ints(*ratesList)
	check(err)
	if *ceiling {
		check(checkLadder(hosts, rates))
	}
	tmp, err := os.MkdirTemp("", "pond-bench-")
	check(err)
	defer os.RemoveAll(tmp)
	if *logs == "" {
		*logs, err = os.MkdirTemp("", "pond-bench-logs-")
		check(err)
	}
	check(os.MkdirAll(*logs, 0o755))
	fmt.Fprintln(os.Stderr, "bench: children's stderr in", *logs)
	if len(aggs) == 0 {
		bin := filepath.Join(tmp, "aggregator")
		check(build(bin, aggregatorPkg, *race))
		aggs = append(aggs, aggSpec{"pond-go", bin})
	}
	for i := range aggs {
		aggs[i].cmd = withArgs(aggs[i].cmd, extra)
	}
	if *producerCmd == "" {
		bin := filepath.Join(tmp, "producer")
		check(build(bin, producerPkg, *race))
		*producerCmd = bin
	}
	var probeList []string
	for _, p := range strings.Split(*probes, ",") {
		if p = strings.TrimSpace(p); p != "" {
			probeList = append(probeList, "/"+strings.TrimPrefix(p, "/"))
		}
	}
	r := runner{
		logs:     *logs,
		producer: *producerCmd, warmup: *warmup, window: time.Duration(*seconds * float64(time.Second)),
		probes: probeList, aggReady: regexp.MustCompile(*aggReady), prodReady: regexp.MustCompile(*prodReady),
	}
	if *ceiling {
		fmt.Println(header())
		climbs := r.ceilings(aggs, hosts[0], rates, extra)
		var report strings.Builder
		for _, c := range climbs {
			report.WriteString("\n" + c.markdown(*label))
		}
		fmt.Print(report.String())
		if *out != "" {
			f, err := os.OpenFile(*out, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
			check(err)
			_, err = f.WriteString(report.String())
			check(errors.Join(err, f.Close()))
		}
		for _, c := range climbs {
			if l := c.levels[len(c.levels)-1]; strings.HasPrefix(l.err, "data race") {
				fmt.Fprintln(os.Stderr, "bench: a child reported a data race (see", *logs+")")
				os.Exit(1)
			}
		}
		return
	}
	var results []result
	fmt.Println(header())
	for _, p := range hosts {
		for _, n := range rates {
			for round := range *rounds {
				for i := range aggs {
					// Alternate the order between rounds.
					a := aggs[(i+round)%len(aggs)]
					res, err := r.run(a, p, n, round+1)
					if err != nil {
						res = result{agg: a.name, hosts: p, rate: n, round: round + 1, err: err.Error()}
					}
					results = append(results, res)
					fmt.Println(res.row())
				}
			}
		}
	}
	failed := false
	for _, res := range results {
		if strings.HasPrefix(res.err, "data race") {
			failed = true
		}
	}
	defer func() {
		if failed {
			fmt.Fprintln(os.Stderr, "bench: a child reported a data race (see", *logs+")")
			os.Exit(1)
		}
	}()
	if *out != "" {
		if *label == "" {
			*label = time.Now().Format("2006-01-02 15:04")
		}
		f, err := os.OpenFile(*out, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		check(err)
		fmt.Fprintf(f, "\n### %s\n\n%s\n", *label, header())
		for _, res := range results {
			fmt.Fprintln(f, res.row())
		}
		check(f.Close())
	}
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

func ints(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			return nil, fmt.Errorf("bad number %q in %q", f, s)
		}
		out = append(out, n)
	}
	return out, nil
}

// The packages the bench builds by default, by import path, so that it
// builds from anywhere in the repository's workspace.
const (
	aggregatorPkg = "github.com/pond-go/pond/examples/aggregator"
	producerPkg   = "github.com/pond-go/pond/examples/aggregator/cmd/producer"
)

// checkRun refuses a measured window or a number of rounds the run
// cannot use: 0 or fewer seconds measured nothing and reported rates of
// NaN or 0, and 0 rounds ran nothing and wrote an empty table.
func checkRun(seconds float64, rounds int) error {
	if !(seconds > 0) || seconds > maxSeconds {
		return fmt.Errorf("-seconds %v: want measured seconds per cell above 0, at most %g", seconds, float64(maxSeconds))
	}
	if rounds < 1 {
		return fmt.Errorf("-rounds %d: want at least 1", rounds)
	}
	return nil
}

// maxSeconds is the longest -seconds taken: a year, far below where the
// window's nanoseconds would overflow.
const maxSeconds = 365 * 24 * 3600

// ceilingDefaults gives -ceiling its defaults for the flags not in set
// (those given on the command line): 1000 hosts, rates 1000 to 8000
// doubling, and a 65 s warm-up (longer than the aggregator's longest
// window, the per-host 1m, so its windows have filled and the heap has
// reached its steady size before the measurement; what is dropped while
// they fill is reported beside it).
func ceilingDefaults(set map[string]bool, hosts, rates *string, warmup *time.Duration, rounds int) error {
	if !set["hosts"] {
		*hosts = "1000"
	}
	if !set["rates"] {
		*rates = "1000,2000,4000,8000"
	}
	if !set["warmup"] {
		*warmup = 65 * time.Second
	}
	if rounds != 1 {
		return fmt.Errorf("-ceiling runs one round per level, not -rounds %d", rounds)
	}
	return nil
}

// checkLadder accepts one host count and rates rising strictly.
func checkLadder(hosts, rates []int) error {
	if len(hosts) != 1 {
		return fmt.Errorf("-ceiling takes one host count, not %v", hosts)
	}
	for i := 1; i < len(rates); i++ {
		if rates[i] <= rates[i-1] {
			return fmt.Errorf("-ceiling wants rates rising, but %d follows %d", rates[i], rates[i-1])
		}
	}
	return nil
}

// withArgs appends args to a shell command, each quoted for sh.
func withArgs(command string, args []string) string {
	for _, a := range args {
		command += " '" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	return command
}

func build(bin, pkg string, race bool) error {
	args := []string{"build", "-o", bin}
	if race {
		args = append(args, "-race")
	}
	cmd := exec.Command("go", append(args, pkg)...)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("go build %s (run the bench inside the repository): %w", pkg, err)
	}
	return nil
}

type runner struct {
	logs                string
	producer            string
	warmup, window      time.Duration
	probes              []string
	aggReady, prodReady *regexp.Regexp
}

type result struct {
	agg                   string
	hosts, rate, round    int
	taken, cores, prodCPU float64
	rssMB, heapMB         float64
	droppedPerSec         float64
	warmDropped           float64    // rows the producer dropped before the measured window
	bursts                dropBursts // the producer's drops over the measured window, read every dropPoll
	halfFull              float64    // batches queued behind half a queue or more in the window; -1: not reported
	p50, p99              float64
	aggFPS                float64
	probeDrops            int64
	aggReady              string // the aggregator's ready line
	err                   string
}

func header() string {
	return "| Aggregator | Hosts × ev/s | Round | Target rows/s | Rows/s taken | CPU cores | Producer cores | RSS MB (max) | Go heap MB | Dropped/s | batchDone p50 ms | p99 ms | /live-agg frames/s |\n" +
		"|---|---|---|---|---|---|---|---|---|---|---|---|---|"
}

func (r result) row() string {
	if r.err != "" {
		return fmt.Sprintf("| %s | %d × %d | %d | %d | error: %s | | | | | | | | |", r.agg, r.hosts, r.rate, r.round, r.hosts*r.rate, r.err)
	}
	heap := "–"
	if r.heapMB > 0 {
		heap = fmt.Sprintf("%.0f", r.heapMB)
	}
	note := ""
	if r.probeDrops > 0 {
		note = fmt.Sprintf(" (probe dropped %d×)", r.probeDrops)
	}
	return fmt.Sprintf("| %s | %d × %d | %d | %s | %s | %.2f | %.2f | %.0f | %s | %s | %.3f | %.2f | %.1f%s |",
		r.agg, r.hosts, r.rate, r.round, comma(float64(r.hosts*r.rate)), comma(r.taken), r.cores, r.prodCPU,
		r.rssMB, heap, comma(r.droppedPerSec), r.p50, r.p99, r.aggFPS, note)
}

func comma(f float64) string {
	s := strconv.FormatInt(int64(f+0.5), 10)
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// freePort asks the kernel for a free port.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// proc is a child process in its own process group.
type proc struct {
	cmd    *exec.Cmd
	name   string
	stderr *os.File
	ready  string        // the line that matched the ready pattern
	exited chan struct{} // closed once the process has exited and its output is read
}

// beforeSelect, when set (by the tests), is called by start with the
// child's exited channel before start waits for its ready line.
var beforeSelect func(exited <-chan struct{})

// start runs command through sh -c "exec …" (so the pid is the program's)
// in its own process group and waits up to 15 s for ready on its stdout
// or stderr; a child that exits before its ready line fails the start at
// once, with the last lines it wrote. Its stderr is also kept whole in
// stderrPath, where a race report or a panic can be read after the run.
func start(name, command string, env []string, ready *regexp.Regexp, stderrPath string) (*proc, error) {
	cmd := exec.Command("sh", "-c", "exec "+command)
	cmd.Env = append(os.Environ(), env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	errFile, err := os.Create(stderrPath)
	if err != nil {
		return nil, err
	}
	pr, pw := io.Pipe()
	cmd.Stdout = pw
	cmd.Stderr = io.MultiWriter(errFile, pw)
	if err := cmd.Start(); err != nil {
		errFile.Close()
		return nil, err
	}
	p := &proc{cmd: cmd, name: name, stderr: errFile, exited: make(chan struct{})}
	found := make(chan struct{})
	read := make(chan struct{})
	var tail []string
	var mu sync.Mutex
	go func() {
		defer close(read)
		sc := bufio.NewScanner(pr)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		once := false
		for sc.Scan() {
			line := sc.Text()
			mu.Lock()
			tail = append(tail, line)
			if len(tail) > 20 {
				tail = tail[1:]
			}
			mu.Unlock()
			if !once && ready.MatchString(line) {
				once = true
				p.ready = line
				close(found)
			}
		}
		io.Copy(io.Discard, pr) // a line too long for the scanner: keep the child unblocked
	}()
	go func() {
		// Wait returns once the child has exited and its output has been
		// copied into the pipe; closing the pipe then ends the reader.
		cmd.Wait()
		pw.Close()
		<-read
		close(p.exited)
	}()
	lastLines := func() string {
		mu.Lock()
		defer mu.Unlock()
		return strings.Join(tail, " / ")
	}
	if beforeSelect != nil {
		beforeSelect(p.exited)
	}
	select {
	case <-found:
		return p, nil
	case <-p.exited:
		select {
		case <-found: // its ready line came before it exited
			return p, nil
		default:
		}
		p.stderr.Close()
		return nil, fmt.Errorf("%s: exited before its ready line; last output: %s", name, lastLines())
	case <-time.After(15 * time.Second):
		p.stop()
		return nil, fmt.Errorf("%s: no ready line in 15 s; last output: %s", name, lastLines())
	}
}

// raced reports whether the child's stderr holds a race report.
func (p *proc) raced() bool {
	data, err := os.ReadFile(p.stderr.Name())
	return err == nil && bytes.Contains(data, []byte("WARNING: DATA RACE"))
}

// stop sends SIGTERM to the process group, then SIGKILL after 5 s, and
// waits for the process to exit.
func (p *proc) stop() {
	pgid := p.cmd.Process.Pid
	syscall.Kill(-pgid, syscall.SIGTERM)
	select {
	case <-p.exited:
	case <-time.After(5 * time.Second):
		syscall.Kill(-pgid, syscall.SIGKILL)
		<-p.exited
	}
	p.stderr.Close()
}

// cpuSeconds reads utime+stime of a process (through procfs).
func cpuSeconds(pid int) (float64, error) {
	p, err := procfs.NewProc(pid)
	if err != nil {
		return 0, err
	}
	st, err := p.Stat()
	if err != nil {
		return 0, err
	}
	return st.CPUTime(), nil
}

// rssMB reads the resident set size of a process, in MiB.
func rssMB(pid int) float64 {
	p, err := procfs.NewProc(pid)
	if err != nil {
		return 0
	}
	st, err := p.Stat()
	if err != nil {
		return 0
	}
	return float64(st.ResidentMemory()) / (1 << 20)
}

// dropPoll is how often the measured window reads the producer's drop
// counter. At 2,000 batches a second the producer's queue holds 32 ms,
// so the rows one stall costs are counted within one or two readings.
const dropPoll = 100 * time.Millisecond

// dropBursts reads a drop counter's series of readings: a burst is a run
// of readings each higher than the one before. Rows lost to a few stalls
// of the producer read as a few short bursts; an aggregator too slow for
// the load drops in nearly every reading.
type dropBursts struct {
	n        int // bursts
	rising   int // readings higher than the one before
	readings int // readings, the first included
	last     float64
	dropping bool
}

// add takes the next reading of the counter.
func (b *dropBursts) add(total float64) {
	up := b.readings > 0 && total > b.last
	if up {
		b.rising++
		if !b.dropping {
			b.n++
		}
	}
	b.readings++
	b.dropping, b.last = up, total
}

// cell is a level's drop bursts in its table, "2 (3 of 300)": the
// bursts, then the readings that rose of those after the first; "–" when
// the counter was not read through the window.
func (b dropBursts) cell() string {
	if b.readings < 2 {
		return "–"
	}
	return fmt.Sprintf("%d (%d of %d)", b.n, b.rising, b.readings-1)
}

// words is the same in a sentence.
func (b dropBursts) words() string {
	s := "bursts"
	if b.n == 1 {
		s = "burst"
	}
	return fmt.Sprintf("%d %s (%d of %d readings %s apart rising)", b.n, s, b.rising, b.readings-1, dropPoll)
}

// aggMetrics is the part of an aggregator's /metrics the bench reads
// (the shape the family's Node aggregator serves as well).
type aggMetrics struct {
	Events struct {
		Ingested float64 `json:"ingested"`
	} `json:"events"`
	Latency struct {
		BatchDoneMs *struct {
			P50 float64 `json:"p50"`
			P99 float64 `json:"p99"`
		} `json:"batchDoneMs"`
	} `json:"latency"`
	Memory struct {
		HeapUsed float64 `json:"heapUsed"`
	} `json:"memory"`
}

type prodMetrics struct {
	DroppedRowsTotal float64 `json:"dropped_rows_total"`
	// HalfFullTotal is nil for a producer that does not count it.
	HalfFullTotal *float64 `json:"queued_half_full_total"`
}

// getMetrics reads the JSON metrics at base: /metrics.json (this
// example's aggregator and producer), else /metrics (the Node and Rust
// aggregators of the seed article serve their JSON there).
func getMetrics(base string, v any) error {
	err := getJSON(base+"/metrics.json", v)
	if errors.Is(err, errNotFound) {
		err = getJSON(base+"/metrics", v)
	}
	return err
}

var errNotFound = errors.New("404 Not Found")

func getJSON(url string, v any) error {
	c := http.Client{Timeout: 5 * time.Second}
	resp, err := c.Get(url)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusNotFound {
		return fmt.Errorf("%s: %w", url, errNotFound)
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s: %s", url, resp.Status)
	}
	return json.NewDecoder(resp.Body).Decode(v)
}

// probe holds a WebSocket open, reading and discarding frames, and counts
// them; it reconnects when the aggregator drops it.
type probe struct {
	frames, drops atomic.Int64
}

func (p *probe) run(ctx context.Context, url string) {
	for ctx.Err() == nil {
		conn, _, err := websocket.Dial(ctx, url, nil)
		if err != nil {
			time.Sleep(100 * time.Millisecond)
			continue
		}
		conn.SetReadLimit(-1)
		for {
			_, r, err := conn.Reader(ctx)
			if err == nil {
				_, err = io.Copy(io.Discard, r)
			}
			if err != nil {
				break
			}
			p.frames.Add(1)
		}
		conn.CloseNow()
		if ctx.Err() == nil {
			p.drops.Add(1)
		}
	}
}

// startTries is how many times startBoth picks ports and starts the two
// children before it gives up.
const startTries = 3

// startBoth starts the producer, then the aggregator, on ports the kernel
// reported free, and returns them with the producer's metrics port and
// the aggregator's port. A port found free can be taken before the child
// binds it (an outgoing connection's local port comes from the same
// range, the aggregator's own dial to the producer among them), so a
// child that exits on "address already in use" is started again, both
// on new ports, up to startTries times.
func (r *runner) startBoth(a aggSpec, hosts, rate, round int) (prod, agg *proc, mport, aport int, err error) {
	logf := func(who string) string {
		return filepath.Join(r.logs, fmt.Sprintf("%s-%dx%d-r%d.stderr", who, hosts, rate, round))
	}
	for try := 1; ; try++ {
		var gport int
		if gport, err = freePort(); err != nil {
			return nil, nil, 0, 0, err
		}
		if mport, err = freePort(); err != nil {
			return nil, nil, 0, 0, err
		}
		if aport, err = freePort(); err != nil {
			return nil, nil, 0, 0, err
		}
		prod, err = start("producer", r.producer, []string{
			"GRPC_PORT=" + strconv.Itoa(gport), "METRICS_PORT=" + strconv.Itoa(mport),
			"HOST_COUNT=" + strconv.Itoa(hosts), "EVENTS_PER_SEC=" + strconv.Itoa(rate),
		}, r.prodReady, logf("producer"))
		if err == nil {
			agg, err = start(a.name, a.cmd, []string{
				"AGGREGATOR_PORT=" + strconv.Itoa(aport), "PRODUCER_URL=127.0.0.1:" + strconv.Itoa(gport),
			}, r.aggReady, logf(a.name))
			if err == nil {
				return prod, agg, mport, aport, nil
			}
			prod.stop()
		}
		if try == startTries || !addrInUse(err) {
			return nil, nil, 0, 0, err
		}
	}
}

// addrInUse reports whether a child failed to start because its port was
// taken.
func addrInUse(err error) bool {
	return strings.Contains(err.Error(), "address already in use")
}

func (r *runner) run(a aggSpec, hosts, rate, round int) (res result, err error) {
	res = result{agg: a.name, hosts: hosts, rate: rate, round: round}
	prod, agg, mport, aport, err := r.startBoth(a, hosts, rate, round)
	if err != nil {
		return res, err
	}
	defer func() {
		prod.stop()
		if prod.raced() && err == nil {
			res, err = result{agg: a.name, hosts: hosts, rate: rate, round: round}, fmt.Errorf("data race in the producer: %s", prod.stderr.Name())
		}
	}()
	defer func() {
		agg.stop()
		if agg.raced() {
			res, err = result{agg: a.name, hosts: hosts, rate: rate, round: round}, fmt.Errorf("data race in %s: %s", a.name, agg.stderr.Name())
		}
	}()
	res.aggReady = agg.ready
	base := fmt.Sprintf("http://127.0.0.1:%d", aport)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	probes := map[string]*probe{}
	var wg sync.WaitGroup
	for _, path := range r.probes {
		p := &probe{}
		probes[path] = p
		wg.Add(1)
		go func() {
			defer wg.Done()
			p.run(ctx, fmt.Sprintf("ws://127.0.0.1:%d%s", aport, path))
		}()
	}
	defer wg.Wait()
	defer cancel()

	time.Sleep(r.warmup)
	var m0, m1 aggMetrics
	var d0, d1 prodMetrics
	if err := getMetrics(base, &m0); err != nil {
		return res, err
	}
	if err := getMetrics(fmt.Sprintf("http://127.0.0.1:%d", mport), &d0); err != nil {
		return res, fmt.Errorf("the producer's drops: %w", err)
	}
	c0, err := cpuSeconds(agg.cmd.Process.Pid)
	if err != nil {
		return res, err
	}
	pc0, _ := cpuSeconds(prod.cmd.Process.Pid)
	var aggFrames0 int64
	if p := probes["/live-agg"]; p != nil {
		aggFrames0 = p.frames.Load()
	}
	t0 := time.Now()
	prodBase := fmt.Sprintf("http://127.0.0.1:%d", mport)
	var bursts dropBursts
	bursts.add(d0.DroppedRowsTotal)
	for i := 1; time.Since(t0) < r.window; i++ {
		time.Sleep(dropPoll)
		var d prodMetrics
		if err := getMetrics(prodBase, &d); err == nil {
			bursts.add(d.DroppedRowsTotal)
		}
		if i%int(time.Second/dropPoll) != 0 {
			continue
		}
		res.rssMB = max(res.rssMB, rssMB(agg.cmd.Process.Pid))
		var m aggMetrics
		if err := getMetrics(base, &m); err == nil {
			res.heapMB = max(res.heapMB, m.Memory.HeapUsed/(1<<20))
		}
	}
	if err := getMetrics(base, &m1); err != nil {
		return res, err
	}
	if err := getMetrics(prodBase, &d1); err != nil {
		return res, fmt.Errorf("the producer's drops: %w", err)
	}
	bursts.add(d1.DroppedRowsTotal)
	res.bursts = bursts
	if d0.HalfFullTotal != nil && d1.HalfFullTotal != nil {
		res.halfFull = *d1.HalfFullTotal - *d0.HalfFullTotal
	} else {
		res.halfFull = -1
	}
	c1, _ := cpuSeconds(agg.cmd.Process.Pid)
	pc1, _ := cpuSeconds(prod.cmd.Process.Pid)
	wall := time.Since(t0).Seconds()
	res.taken = (m1.Events.Ingested - m0.Events.Ingested) / wall
	res.cores = (c1 - c0) / wall
	res.prodCPU = (pc1 - pc0) / wall
	res.droppedPerSec = (d1.DroppedRowsTotal - d0.DroppedRowsTotal) / wall
	res.warmDropped = d0.DroppedRowsTotal
	if l := m1.Latency.BatchDoneMs; l != nil {
		res.p50, res.p99 = l.P50, l.P99
	}
	if p := probes["/live-agg"]; p != nil {
		res.aggFPS = float64(p.frames.Load()-aggFrames0) / wall
	}
	for _, p := range probes {
		res.probeDrops += p.drops.Load()
	}
	return res, nil
}

package dashboard

// Probes of the page's reading of the /live-agg frames: the served
// /static/app.js is run under node with a stub DOM, fed frames written by
// the wire package's encoders, and the page's state read back.

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/pond-go/pond/examples/internal/wire"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// wf42Harness loads app.js (argv[2]) in a node vm context with a stub DOM
// (every element a proxy that takes any property and call), a WebSocket
// that never opens and timers that never fire, feeds it the frames of
// argv[3] (one per line) through onFrame, redrawing after each, and
// prints the page's state after each frame as JSON (its hosts only after
// the last). A frame whose
// handling and drawing makes more than wf42MaxCalls calls on the DOM and
// canvas stubs (a drawing loop that does not end) is stopped there and
// reported as "runaway" in its state: a count, not a clock.
const wf42Harness = `'use strict';
const vm = require('vm'), fs = require('fs');
const [appPath, framesPath, search] = process.argv.slice(2);
let calls = 0;
const MAX_CALLS = 1000000;
function count() {
  if (++calls > MAX_CALLS) throw new Error('runaway: over ' + MAX_CALLS + ' DOM and canvas calls for one frame');
}
function stub() {
  const store = {};
  const f = function () { return p; };
  const p = new Proxy(f, {
    get(_, k) {
      if (k === Symbol.toPrimitive) return () => 0;
      if (k === Symbol.iterator) return function* () {};
      if (k === 'then') return undefined;
      if (k in store) return store[k];
      const s = stub(); store[k] = s; return s;
    },
    set(_, k, v) { store[k] = v; return true; },
    apply() { count(); return p; },
    construct() { count(); return p; },
  });
  return p;
}
const els = new Map();
const document = {
  getElementById(id) { if (!els.has(id)) els.set(id, stub()); return els.get(id); },
  querySelector() { return stub(); }, querySelectorAll() { return []; },
  createElement() { return stub(); }, createTextNode() { return stub(); },
};
const sandbox = {
  console, URLSearchParams,
  location: { search: search || '', protocol: 'http:', host: 'x' },
  document, performance: { now: () => 0 }, setTimeout() {}, fetch: () => new Promise(() => {}),
  WebSocket: Object.assign(function () { return { send() {} }; }, { OPEN: 1 }),
};
vm.createContext(sandbox);
vm.runInContext(fs.readFileSync(appPath, 'utf8'), sandbox, { filename: 'app.js' });
sandbox.__frames = fs.readFileSync(framesPath, 'utf8').split('\n').filter((s) => s.length);
sandbox.__reset = () => { calls = 0; };
const out = vm.runInContext(` + "`" + `(() => {
  const res = [];
  for (const [i, d] of __frames.entries()) {
    __reset();
    let runaway = '';
    try {
      onFrame(d);
      state.dirty = true;
      redraw();
    } catch (e) {
      runaway = String(e && e.message);
    }
    const hosts = [];
    if (i === __frames.length - 1) for (const [name, h] of state.hosts) hosts.push({ name, ticks: h.ticks });
    res.push({ thresholds: state.thresholds, globals: state.globals, hosts, frames: state.totalFrames, runaway });
  }
  return JSON.stringify(res);
})()` + "`" + `, sandbox);
process.stdout.write(out);
`

// wf42PageTick is a HostTick as the page holds it (JSON.parse's object).
type wf42PageTick struct {
	TS               int64    `json:"ts"`
	Host             string   `json:"host"`
	CPUAvg           *float64 `json:"cpu_avg"`
	CPUSd            *float64 `json:"cpu_sd"`
	CPUN             int      `json:"cpu_n"`
	NCurrent         int      `json:"n_current"`
	AnomaliesAbove   []int    `json:"anomalies_above"`
	AnomaliesBelow   []int    `json:"anomalies_below"`
	RequestsAvg      *float64 `json:"requests_avg"`
	RequestsSum      *float64 `json:"requests_sum"`
	RequestsN        int      `json:"requests_n"`
	WindowAgeSeconds *float64 `json:"window_age_seconds"`
	CPUMin           *float64 `json:"cpu_min"`
	CPUMax           *float64 `json:"cpu_max"`
	CurrentAvg       *float64 `json:"current_avg"`
	CurrentSd        *float64 `json:"current_sd"`
}

type wf42PageGlobals struct {
	TS                    int64    `json:"ts"`
	EventsIngestedTotal   uint64   `json:"events_ingested_total"`
	EventsPerSec          int64    `json:"events_per_sec"`
	EvictedTotal          uint64   `json:"evicted_total"`
	RequestsIngestedTotal *float64 `json:"requests_ingested_total"`
}

type wf42PageState struct {
	Thresholds []float64        `json:"thresholds"`
	Globals    *wf42PageGlobals `json:"globals"`
	Hosts      []struct {
		Name  string         `json:"name"`
		Ticks []wf42PageTick `json:"ticks"`
	} `json:"hosts"`
	Frames int `json:"frames"`
	// Runaway is the error handling or drawing the frame threw, if any.
	Runaway string `json:"runaway"`
}

// wf42RunPage runs the served page's script on frames and returns its
// state after each.
func wf42RunPage(t *testing.T, search string, frames [][]byte) []wf42PageState {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed: the page's script cannot be run")
	}
	res, app := get(t, Handler(Page{RequestTotals: true}), "/static/app.js")
	require.Equal(t, 200, res.StatusCode)
	dir := t.TempDir()
	paths := map[string]string{"harness.js": wf42Harness, "app.js": app}
	var lines []string
	for _, f := range frames {
		require.NotContains(t, string(f), "\n", "a frame is one line")
		lines = append(lines, string(f))
	}
	paths["frames.txt"] = strings.Join(lines, "\n")
	for name, body := range paths {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644))
	}
	out, err := exec.Command(node, filepath.Join(dir, "harness.js"), filepath.Join(dir, "app.js"), filepath.Join(dir, "frames.txt"), search).CombinedOutput()
	require.NoError(t, err, "%s", out)
	var states []wf42PageState
	require.NoError(t, json.Unmarshal(out, &states))
	require.Len(t, states, len(frames))
	return states
}

var wf42Specials = []float64{math.NaN(), math.Inf(1), math.Inf(-1), math.Copysign(0, -1), 0, 5e-324, 1e-7, 1e21, math.MaxFloat64, -1e300, 0.1}

func wf42Float(rng *rand.Rand) float64 {
	switch rng.IntN(4) {
	case 0:
		return wf42Specials[rng.IntN(len(wf42Specials))]
	case 1:
		return math.Float64frombits(rng.Uint64())
	}
	return rng.Float64()
}

// wf42Read is the number the page should hold: null for NaN and ±Inf,
// 0 for -0, the number itself otherwise.
func wf42Read(f float64) *float64 {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return nil
	}
	f += 0 // -0 is 0
	return &f
}

func wf42HostName(rng *rand.Rand, i int) string {
	parts := []string{"", "é", "\u2028", "\u2029", "\"", "\\", "\x00", "\x1f", "\b", "😀", "</script>", "\xff"}
	return fmt.Sprintf("h%03d%s%s", i, parts[rng.IntN(len(parts))], parts[rng.IntN(len(parts))])
}

func wf42ValidHost(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			b.WriteRune(utf8.RuneError)
		} else {
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// TestWf42ThePageReadsBackWhatTheEncoderWrites feeds the page a snapshot
// and appends of seeded random ticks (NaN, ±Inf, -0, extreme numbers,
// hosts with quotes, control characters, U+2028 and bytes that are not
// UTF-8, a random subset of hosts per tick as a top-N cut gives) and
// checks that the page holds every row, every field as the README's
// frames say (null for NaN and ±Inf, 0 for -0, U+FFFD for a byte that is
// not UTF-8), the thresholds of the snapshot and the globals of the last
// frame, and that drawing after each frame does not throw.
func TestWf42ThePageReadsBackWhatTheEncoderWrites(t *testing.T) {
	for seed := range uint64(3) {
		rng := rand.New(rand.NewPCG(seed, 42))
		nHosts := []int{1, 7, 40}[seed]
		hosts := make([]string, nHosts)
		for i := range hosts {
			hosts[i] = wf42HostName(rng, i)
		}
		thresholds := wire.DefaultThresholds
		if seed == 2 {
			thresholds = []float64{0.5, 1, 4}
		}
		const nTicks, snapTicks = 60, 25
		var frames [][]byte
		var snap wire.AggregateSnapshot
		snap.Begin(nil, thresholds)
		want := map[string][]wire.HostTick{}
		var lastGlobals wire.GlobalsTick
		var snapGlobals []wire.GlobalsTick
		for k := range nTicks {
			ts := int64(1714000000000 + 200*k)
			var rows []*wire.HostTick
			for i := range hosts {
				if rng.IntN(3) == 0 {
					continue
				}
				above, below := make([]int, len(thresholds)), make([]int, len(thresholds))
				for j := range above {
					above[j], below[j] = rng.IntN(4), rng.IntN(4)
				}
				rows = append(rows, &wire.HostTick{
					TS: ts, Host: hosts[i], CPUAvg: wf42Float(rng), CPUSd: wf42Float(rng), CPUN: rng.IntN(500),
					NCurrent: rng.IntN(5), AnomaliesAbove: above, AnomaliesBelow: below,
					RequestsAvg: wf42Float(rng), RequestsSum: wf42Float(rng), RequestsN: rng.IntN(500),
					WindowAgeSeconds: wf42Float(rng), CPUMin: wf42Float(rng), CPUMax: wf42Float(rng),
					CurrentAvg: wf42Float(rng), CurrentSd: wf42Float(rng),
				})
			}
			rng.Shuffle(len(rows), func(i, j int) { rows[i], rows[j] = rows[j], rows[i] })
			for _, r := range rows {
				want[r.Host] = append(want[r.Host], *r)
			}
			g := wire.GlobalsTick{TS: ts, EventsIngestedTotal: uint64(rng.IntN(1 << 40)), EventsPerSec: rng.Int64N(1 << 20),
				EvictedTotal: uint64(rng.IntN(1 << 30)), RequestsIngestedTotal: wf42Float(rng)}
			lastGlobals = g
			if k < snapTicks {
				for _, r := range rows {
					snap.Row(r)
				}
				// Globals go after every row (AggregateSnapshot's order).
				snapGlobals = append(snapGlobals, g)
				if k == snapTicks-1 {
					for i := range snapGlobals {
						snap.Globals(&snapGlobals[i])
					}
					frames = append(frames, snap.End())
				}
				continue
			}
			frames = append(frames, wire.AppendAggregateAppend(nil, rows, &g))
		}
		states := wf42RunPage(t, "?n=5&by=cpu_sd&sigma=1.5", frames)
		for i, s := range states {
			assert.Empty(t, s.Runaway, "seed %d frame %d: the page takes and draws it", seed, i)
		}
		last := states[len(states)-1]
		assert.Equal(t, len(frames), last.Frames, "seed %d: every frame taken", seed)
		assert.Equal(t, thresholds, states[0].Thresholds, "seed %d: the snapshot's thresholds", seed)
		require.NotNil(t, last.Globals)
		assert.Equal(t, lastGlobals.TS, last.Globals.TS)
		assert.Equal(t, lastGlobals.EventsPerSec, last.Globals.EventsPerSec)
		assert.Equal(t, lastGlobals.EvictedTotal, last.Globals.EvictedTotal)
		assert.Equal(t, wf42Read(lastGlobals.RequestsIngestedTotal), last.Globals.RequestsIngestedTotal)
		got := map[string][]wf42PageTick{}
		for _, h := range last.Hosts {
			got[h.Name] = h.Ticks
		}
		require.Len(t, got, len(want), "seed %d: every host", seed)
		for host, ticks := range want {
			name := wf42ValidHost(host)
			g := got[name]
			require.Len(t, g, len(ticks), "seed %d host %q: every row once", seed, name)
			for i, w := range ticks {
				where := fmt.Sprintf("seed %d host %q tick %d", seed, name, i)
				p := g[i]
				assert.Equal(t, w.TS, p.TS, where)
				assert.Equal(t, name, p.Host, where)
				assert.Equal(t, w.CPUN, p.CPUN, where)
				assert.Equal(t, w.NCurrent, p.NCurrent, where)
				assert.Equal(t, w.RequestsN, p.RequestsN, where)
				assert.Equal(t, w.AnomaliesAbove, p.AnomaliesAbove, where)
				assert.Equal(t, w.AnomaliesBelow, p.AnomaliesBelow, where)
				for _, f := range []struct {
					name string
					w    float64
					p    *float64
				}{
					{"cpu_avg", w.CPUAvg, p.CPUAvg}, {"cpu_sd", w.CPUSd, p.CPUSd}, {"requests_avg", w.RequestsAvg, p.RequestsAvg},
					{"requests_sum", w.RequestsSum, p.RequestsSum}, {"window_age_seconds", w.WindowAgeSeconds, p.WindowAgeSeconds},
					{"cpu_min", w.CPUMin, p.CPUMin}, {"cpu_max", w.CPUMax, p.CPUMax},
					{"current_avg", w.CurrentAvg, p.CurrentAvg}, {"current_sd", w.CurrentSd, p.CurrentSd},
				} {
					assert.Equal(t, wf42Read(f.w), f.p, "%s: %s %v", where, f.name, f.w)
				}
			}
		}
	}
}

// The aggregator dashboard: subscribes to /live-agg (same origin), keeps a
// bounded client-side history per host and draws it on canvases, redrawing
// at most every 500 ms so it stays responsive at 1000 hosts (the server
// sends only the top-N hosts this page asks for).
'use strict';

// Sixteen distinguishable colours, more than the largest top-N choice, so
// no two hosts on screen share one; a host keeps its colour while shown.
const PALETTE = ['#4c8bf5', '#2ec27e', '#f59f4c', '#a76bf5', '#3bc3c3', '#e28bd8', '#f5d94c', '#8bc34a',
  '#ff7f7f', '#5c6bc0', '#26a69a', '#d4a373', '#ba68c8', '#90caf9', '#c0ca33', '#f06292'];
const ANOMALY = '#e23b3b';
const WINDOW_MS = 5 * 60 * 1000;   // chart window
const KEEP_MS = 6 * 60 * 1000;     // client-side retention
const MAX_POINTS = 250;            // points per drawn series
const REDRAW_MS = 500;

const params = new URLSearchParams(location.search);
const state = {
  thresholds: [1, 1.5, 2, 2.5, 3],
  hosts: new Map(),       // host -> {ticks: [], latest}
  hidden: new Set(),      // hosts unchecked in the table
  globals: null,
  latestTs: 0,
  topN: parseInt(params.get('n') || '10', 10),
  by: params.get('by') || 'cpu_avg',
  sigma: parseFloat(params.get('sigma') || '2'),
  ema: null,
  logs: [],
  frames: [],             // [arrival ms, bytes, rows] of recent frames
  totalFrames: 0, totalBytes: 0,
  hostCount: null,
  upstream: null,         // /metrics.json's upstream: {connected, unreachableSinceMs}
  wsState: 'connecting',
  globalsHist: [],        // recent globals, for the all-hosts request rate
  colors: new Map(),      // host -> palette index, while shown
  dirty: true,
};

// ---- connection with the shared backoff (1 s doubling to 30 s, ±20 %) ----
function backoffDelay(attempt) {
  const base = Math.min(30000, 1000 * Math.pow(2, attempt));
  return Math.round(base + (2 * Math.random() - 1) * 0.2 * base);
}

let ws = null, attempt = 0;
function setStatus(s) {
  state.wsState = s;
  renderStatus();
}

// renderStatus combines the socket's state with the producer's: the page is
// "live" only when both are up.
function renderStatus() {
  const s = state.wsState;
  let text = s === 'connected' ? 'live' : s, cls = s === 'connected' ? 'live' : s;
  const up = state.upstream;
  if (s === 'connected' && up && !up.connected) {
    text = up.unreachableSinceMs != null
      ? 'producer unreachable since ' + clock(up.unreachableSinceMs)
      : 'waiting for the producer';
    cls = 'closed';
  }
  document.getElementById('status').textContent = text;
  document.getElementById('probe-status').textContent = s;
  document.getElementById('status-dot').className = 'dot ' + cls;
}

function clock(ms) {
  return new Date(ms).toLocaleTimeString('en-GB', { hour12: false });
}

function connect() {
  const proto = location.protocol === 'https:' ? 'wss:' : 'ws:';
  const url = `${proto}//${location.host}/live-agg?n=${state.topN}&by=${encodeURIComponent(state.by)}`;
  setStatus(attempt === 0 ? 'connecting' : 'reconnecting');
  const sock = new WebSocket(url);
  ws = sock;
  sock.onopen = () => {
    attempt = 0;
    sendTopN();
  };
  sock.onmessage = (ev) => {
    if (sock !== ws) return; // a frame after cancel
    onFrame(ev.data);
  };
  sock.onclose = () => {
    if (sock !== ws) return;
    setStatus('reconnecting');
    const d = backoffDelay(attempt++);
    setTimeout(connect, d);
  };
}

function sendTopN() {
  if (ws && ws.readyState === WebSocket.OPEN) {
    ws.send(JSON.stringify({ type: 'set-top-n', n: state.topN, by: state.by }));
  }
}

// ---- frames ----
function onFrame(data) {
  const now = performance.now();
  let f;
  try { f = JSON.parse(data); } catch (e) { return; }
  state.totalFrames++;
  state.totalBytes += data.length;
  if (f.type === 'aggregate-snapshot') {
    state.thresholds = f.thresholds;
    state.hosts.clear();
    for (const r of f.rows) addRow(r);
    if (f.globals.length) state.globals = f.globals[f.globals.length - 1];
    state.globalsHist = f.globals.slice(-50);
    setStatus('connected');
  } else if (f.type === 'aggregate-append') {
    let n = 0;
    for (const r of f.rows) { addRow(r); n += r.n_current; }
    state.globals = f.globals;
    state.globalsHist.push(f.globals);
    if (state.globalsHist.length > 50) state.globalsHist.shift();
    state.frames.push([now, data.length, n]);
    pushLogs(f.rows);
    updateEma();
  } else {
    return;
  }
  while (state.frames.length && now - state.frames[0][0] > 5000) state.frames.shift();
  state.dirty = true;
  renderProbe();
}

function addRow(r) {
  let h = state.hosts.get(r.host);
  if (!h) { h = { ticks: [], latest: null }; state.hosts.set(r.host, h); }
  const ticks = h.ticks;
  if (ticks.length && ticks[ticks.length - 1].ts >= r.ts) return;
  ticks.push(r);
  h.latest = r;
  if (r.ts > state.latestTs) state.latestTs = r.ts;
  const cut = r.ts - KEEP_MS;
  let k = 0;
  while (k < ticks.length && ticks[k].ts < cut) k++;
  if (k > 0) ticks.splice(0, k);
}

function pushLogs(rows) {
  for (const r of rows) {
    state.logs.unshift(`${new Date(r.ts).toISOString().slice(11, 23)} ${r.host} cpu=${pct(r.current_avg)} avg=${pct(r.cpu_avg)} σ=${sdPct(r.cpu_sd)} n=${r.n_current}`);
  }
  state.logs.length = Math.min(state.logs.length, 30);
}

function updateEma() {
  const v = weightedCpu(visibleHosts());
  if (v == null) return;
  state.ema = state.ema == null ? v : state.ema + 0.1 * (v - state.ema);
}

// ---- helpers ----
function pct(x) { return x == null ? '–' : (100 * x).toFixed(0) + '%'; }
// sdPct writes a σ of CPU the one way the page uses: percentage points.
function sdPct(x) { return x == null ? '–' : (100 * x).toFixed(1) + '%'; }
function fmt(x, d) { return x == null ? '–' : Number(x).toFixed(d); }
function num(x) { return x == null ? '–' : Math.round(x).toLocaleString('en-US'); }

function hostColor(name) {
  const i = state.colors.get(name);
  return PALETTE[(i == null ? 0 : i) % PALETTE.length];
}

// assignColors gives each shown host a colour no other shown host has,
// keeping the colours of hosts that stay.
function assignColors(ranked) {
  const shown = new Set(ranked.map(([name]) => name));
  for (const name of [...state.colors.keys()]) if (!shown.has(name)) state.colors.delete(name);
  const used = new Set(state.colors.values());
  let next = 0;
  for (const name of shown) {
    if (state.colors.has(name)) continue;
    while (used.has(next)) next++;
    state.colors.set(name, next);
    used.add(next);
  }
}

// countAtSigma interpolates the anomaly counts between thresholds,
// clamping σ to the ends of the list.
function countAtSigma(counts, sigma, th) {
  if (!counts || !th || counts.length === 0 || counts.length !== th.length) return 0;
  if (sigma <= th[0]) return counts[0];
  if (sigma >= th[th.length - 1]) return counts[counts.length - 1];
  for (let i = 1; i < th.length; i++) {
    if (sigma <= th[i]) {
      const f = (sigma - th[i - 1]) / (th[i] - th[i - 1]);
      return counts[i - 1] + f * (counts[i] - counts[i - 1]);
    }
  }
  return 0;
}

function rankValue(r, by) {
  if (!r) return null;
  if (by === 'requests_sum') return r.requests_sum / Math.max(0.001, r.window_age_seconds);
  return r[by];
}

function rankedHosts() {
  const fresh = state.latestTs - 3000;
  const list = [];
  for (const [name, h] of state.hosts) {
    if (h.latest && h.latest.ts >= fresh) list.push([name, h]);
  }
  list.sort((a, b) => (rankValue(b[1].latest, state.by) ?? -Infinity) - (rankValue(a[1].latest, state.by) ?? -Infinity));
  return list.slice(0, state.topN);
}

function visibleHosts() {
  return rankedHosts().filter(([name]) => !state.hidden.has(name));
}

function weightedCpu(hosts) {
  let s = 0, n = 0;
  for (const [, h] of hosts) {
    const r = h.latest;
    if (r && r.cpu_avg != null && r.cpu_n > 0) { s += r.cpu_avg * r.cpu_n; n += r.cpu_n; }
  }
  return n > 0 ? s / n : null;
}

// ---- rendering ----
function renderHeader() {
  const g = state.globals;
  document.getElementById('total-events').textContent = g ? num(g.events_ingested_total) : '–';
  document.getElementById('event-rate').textContent = g ? g.events_per_sec.toFixed(1) + '/s' : '–';
  document.getElementById('evicted').textContent = g ? num(g.evicted_total) : '–';
  document.getElementById('hosts').textContent = state.hostCount != null ? num(state.hostCount) : num(state.hosts.size);
  setOptional('req-total', g && g.requests_ingested_total != null ? num(g.requests_ingested_total) : '–');
}

// setOptional writes text into the element with the id when the page has
// one: the request totals are there only where the frames carry them.
function setOptional(id, text) {
  const el = document.getElementById(id);
  if (el) el.textContent = text;
}

function renderTable(ranked) {
  const tbody = document.querySelector('#hosts-table tbody');
  const heads = { cpu_avg: '1m CPU', cpu_sd: '1m volatility', requests_sum: '1m req/s' };
  document.getElementById('rank-head').textContent = heads[state.by] || state.by;
  const rows = [];
  for (const [name, h] of ranked) {
    const r = h.latest;
    const v = rankValue(r, state.by);
    const shown = state.by === 'cpu_avg' ? pct(v) : state.by === 'cpu_sd' ? sdPct(v) : fmt(v, 1);
    rows.push({ name, shown, current: pct(r.current_avg), ticks: h.ticks });
  }
  // Rebuild only the rows' content; keep checkboxes' state in state.hidden.
  tbody.textContent = '';
  for (const row of rows) {
    const tr = document.createElement('tr');
    tr.dataset.host = row.name;
    const cb = document.createElement('input');
    cb.type = 'checkbox';
    cb.checked = !state.hidden.has(row.name);
    cb.onchange = () => { if (cb.checked) state.hidden.delete(row.name); else state.hidden.add(row.name); state.dirty = true; };
    const td0 = document.createElement('td'); td0.appendChild(cb);
    const td1 = document.createElement('td');
    const sw = document.createElement('span'); sw.className = 'swatch'; sw.style.background = hostColor(row.name);
    td1.appendChild(sw); td1.appendChild(document.createTextNode(row.name));
    const td2 = document.createElement('td'); td2.textContent = row.shown;
    const td3 = document.createElement('td'); td3.textContent = row.current;
    const td4 = document.createElement('td');
    const spark = document.createElement('canvas'); spark.width = 80; spark.height = 18; spark.style.width = '80px'; spark.style.margin = '0';
    td4.appendChild(spark);
    tr.append(td0, td1, td2, td3, td4);
    tbody.appendChild(tr);
    drawSpark(spark, row.ticks.slice(-60).map((t) => rankValue(t, state.by)), hostColor(row.name));
  }
}

function drawSpark(c, vals, color) {
  const g = c.getContext('2d');
  const xs = vals.filter((v) => v != null);
  if (xs.length < 2) return;
  let lo = Math.min(...xs), hi = Math.max(...xs);
  if (hi - lo < 1e-9) { lo -= 0.5; hi += 0.5; }
  g.strokeStyle = color; g.lineWidth = 1; g.beginPath();
  let started = false;
  vals.forEach((v, i) => {
    if (v == null) { started = false; return; }
    const x = (i / (vals.length - 1)) * (c.width - 1);
    const y = c.height - 1 - ((v - lo) / (hi - lo)) * (c.height - 2);
    if (started) g.lineTo(x, y); else { g.moveTo(x, y); started = true; }
  });
  g.stroke();
}

// downsample groups a host's ticks in view into at most MAX_POINTS buckets:
// averages for the averages, extremes for the extremes, last for counts.
function downsample(ticks, t0, t1) {
  const bucketMs = bucketOf(t0, t1);
  const out = [];
  let cur = null;
  for (const t of ticks) {
    if (t.ts < t0) continue;
    const b = Math.floor((t.ts - t0) / bucketMs);
    if (!cur || cur.b !== b) {
      if (cur) out.push(finish(cur));
      cur = { b, ts: t.ts, n: 0, cur: 0, curN: 0, avg: 0, sd: 0, sN: 0, cpuN: 0, min: Infinity, max: -Infinity, csd: 0 };
    }
    cur.ts = t.ts;
    cur.cpuN = t.cpu_n;
    if (t.n_current >= 1 && t.current_avg != null) { cur.cur += t.current_avg; cur.csd += t.current_sd || 0; cur.curN++; }
    if (t.cpu_avg != null && t.cpu_sd != null) { cur.avg += t.cpu_avg; cur.sd += t.cpu_sd; cur.sN++; }
    if (t.cpu_min != null) cur.min = Math.min(cur.min, t.cpu_min);
    if (t.cpu_max != null) cur.max = Math.max(cur.max, t.cpu_max);
  }
  if (cur) out.push(finish(cur));
  return out;
  function finish(c) {
    return {
      ts: c.ts, cpuN: c.cpuN,
      cur: c.curN ? c.cur / c.curN : null, csd: c.curN ? c.csd / c.curN : null,
      avg: c.sN ? c.avg / c.sN : null, sd: c.sN ? c.sd / c.sN : null,
      min: isFinite(c.min) ? c.min : null, max: isFinite(c.max) ? c.max : null,
    };
  }
}

function bucketOf(t0, t1) { return Math.max(200, (t1 - t0) / MAX_POINTS); }

// gapAfter says whether two consecutive points are too far apart to join:
// a host that left the top N (or stopped) has no ticks in between, and a
// straight line across would invent them.
function gapAfter(a, b, gapMs) { return b.ts - a.ts > gapMs; }

// niceStep returns a round step (1, 2 or 5 × 10^k) near range/target.
function niceStep(range, target) {
  const raw = range / Math.max(1, target);
  const p = Math.pow(10, Math.floor(Math.log10(raw)));
  const m = raw / p;
  return (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10) * p;
}

function renderChart(hosts) {
  const c = document.getElementById('cpu-chart');
  const w = c.clientWidth || 800, h = c.height;
  if (c.width !== w) c.width = w;
  const g = c.getContext('2d');
  g.clearRect(0, 0, w, h);
  const t1 = state.latestTs, t0 = t1 - WINDOW_MS;
  const padL = 40, padB = 18;
  const showBands = document.getElementById('show-bands').checked;
  const showRaw = document.getElementById('show-raw').checked;
  const sigma = state.sigma;
  const gapMs = 3 * bucketOf(t0, t1) + 1000;
  const series = hosts.map(([name, hh]) => [name, hh, downsample(hh.ticks, t0, t1)]);
  const upper = (p) => p.cpuN >= 30 && p.avg != null && p.sd != null ? p.avg + sigma * p.sd : null;
  const lower = (p) => p.cpuN >= 30 && p.avg != null && p.sd != null ? p.avg - sigma * p.sd : null;
  // The axis contains everything drawn: the lines, the bands and the raw
  // extremes, padded a little; never narrower than 10 points.
  let lo = Infinity, hi = -Infinity, bandLo = Infinity, bandHi = -Infinity;
  const see = (v) => { if (v != null && isFinite(v)) { lo = Math.min(lo, v); hi = Math.max(hi, v); } };
  for (const [, , pts] of series) {
    for (const p of pts) {
      see(p.cur);
      if (showBands) {
        const u = upper(p), l = lower(p);
        see(u); see(l);
        if (u != null) bandHi = Math.max(bandHi, u);
        if (l != null) bandLo = Math.min(bandLo, l);
      }
      if (showRaw) { see(p.min); see(p.max); }
    }
  }
  if (!isFinite(lo)) { lo = 0; hi = 1; }
  const span = Math.max(0.1, hi - lo);
  const Y0 = lo - 0.05 * span, Y1 = hi + 0.05 * span;
  const X = (ts) => padL + ((ts - t0) / WINDOW_MS) * (w - padL - 4);
  const Y = (v) => (h - padB) - ((v - Y0) / (Y1 - Y0)) * (h - padB - 6);
  g.strokeStyle = '#2a3541'; g.fillStyle = '#8a96a3'; g.font = '11px sans-serif'; g.lineWidth = 1;
  const yStep = niceStep(Y1 - Y0, 6);
  // Counted, not stepped: beside values as large as 1e16 a step below
  // their resolution leaves v where it was, and the loop never ended.
  const first = Math.ceil(Y0 / yStep), lines = Math.min(100, Math.floor(Y1 / yStep + 1e-9) - first + 1);
  for (let i = 0; i < lines; i++) {
    const v = (first + i) * yStep;
    g.beginPath(); g.moveTo(padL, Y(v)); g.lineTo(w, Y(v)); g.stroke();
    g.fillText((v * 100).toFixed(yStep < 0.01 ? 1 : 0) + '%', 2, Y(v) + 4);
  }
  // Time axis: a label each minute (local time), the newest at the right.
  const xLabels = [];
  for (let ts = Math.ceil(t0 / 60000) * 60000; ts <= t1; ts += 60000) {
    const x = X(ts);
    g.beginPath(); g.moveTo(x, 6); g.lineTo(x, h - padB); g.stroke();
    const label = clock(ts).slice(0, 5);
    xLabels.push(label);
    g.fillText(label, Math.min(w - 32, Math.max(padL, x - 14)), h - 4);
  }
  c.dataset.yMin = String(Y0); c.dataset.yMax = String(Y1);
  c.dataset.bandMin = isFinite(bandLo) ? String(bandLo) : '';
  c.dataset.bandMax = isFinite(bandHi) ? String(bandHi) : '';
  c.dataset.xLabels = xLabels.join(',');
  let dots = 0;
  const dotsAt = [];
  for (const [name, hh, pts] of series) {
    const color = hostColor(name);
    if (showRaw) {
      fillBand(g, pts, X, Y, (p) => p.min, (p) => p.max, color, 0.10, gapMs);
      fillBand(g, pts, X, Y, (p) => p.cur == null ? null : p.cur - p.csd, (p) => p.cur == null ? null : p.cur + p.csd, color, 0.30, gapMs);
    }
    line(g, pts, X, Y, (p) => p.cur, color, [], gapMs);
    if (showBands) {
      line(g, pts, X, Y, upper, color, [4, 3], gapMs);
      line(g, pts, X, Y, lower, color, [4, 3], gapMs);
    }
    // Anomaly dots at full resolution.
    for (const t of hh.ticks) {
      if (t.ts < t0) continue;
      if (countAtSigma(t.anomalies_above, sigma, state.thresholds) >= 1 && t.cpu_max != null) { dotsAt.push([X(t.ts), Y(t.cpu_max), t.ts]); dots++; }
      if (countAtSigma(t.anomalies_below, sigma, state.thresholds) >= 1 && t.cpu_min != null) { dotsAt.push([X(t.ts), Y(t.cpu_min), t.ts]); dots++; }
    }
  }
  g.fillStyle = ANOMALY;
  for (const [x, y] of dotsAt) { g.beginPath(); g.arc(x, y, 2.5, 0, 2 * Math.PI); g.fill(); }
  c.dataset.anomalies = String(dots);
  document.getElementById('anomaly-count').textContent = String(dots);
  renderBars(dotsAt, t0);
}

function line(g, pts, X, Y, f, color, dash, gapMs) {
  g.strokeStyle = color; g.setLineDash(dash); g.lineWidth = dash.length ? 1 : 1.5;
  g.beginPath();
  let on = false, prev = null;
  for (const p of pts) {
    const v = f(p);
    if (v == null) { on = false; prev = null; continue; }
    if (on && prev && !gapAfter(prev, p, gapMs)) g.lineTo(X(p.ts), Y(v)); else { g.moveTo(X(p.ts), Y(v)); on = true; }
    prev = p;
  }
  g.stroke();
  g.setLineDash([]);
}

function fillBand(g, pts, X, Y, lo, hi, color, alpha, gapMs) {
  g.globalAlpha = alpha; g.fillStyle = color;
  for (let i = 1; i < pts.length; i++) {
    const a = pts[i - 1], b = pts[i];
    if (lo(a) == null || hi(a) == null || lo(b) == null || hi(b) == null || gapAfter(a, b, gapMs)) continue;
    g.beginPath();
    g.moveTo(X(a.ts), Y(hi(a))); g.lineTo(X(b.ts), Y(hi(b))); g.lineTo(X(b.ts), Y(lo(b))); g.lineTo(X(a.ts), Y(lo(a)));
    g.closePath(); g.fill();
  }
  g.globalAlpha = 1;
}

function renderBars(dotsAt, t0) {
  const c = document.getElementById('anomaly-bars');
  const w = c.clientWidth || 800, h = c.height;
  if (c.width !== w) c.width = w;
  const g = c.getContext('2d');
  g.clearRect(0, 0, w, h);
  const n = WINDOW_MS / 15000;
  const counts = new Array(n).fill(0);
  for (const [, , ts] of dotsAt) counts[Math.min(n - 1, Math.floor((ts - t0) / 15000))]++;
  // A fixed floor of 5 so that one or two anomalies do not fill the chart,
  // then round steps; the scale is written on the left.
  const top = Math.max(5, ...counts);
  const step = niceStep(top, 2);
  const mx = Math.ceil(top / step) * step;
  const padL = 40, padT = 12;
  const bw = (w - padL) / n;
  const Yb = (k) => h - (k / mx) * (h - padT);
  g.strokeStyle = '#2a3541'; g.fillStyle = '#8a96a3'; g.font = '11px sans-serif';
  for (let k = 0; k <= mx; k += step) {
    g.beginPath(); g.moveTo(padL, Yb(k)); g.lineTo(w, Yb(k)); g.stroke();
    g.fillText(String(k), 2, Math.min(h - 2, Math.max(10, Yb(k) + 4)));
  }
  g.fillStyle = ANOMALY;
  counts.forEach((k, i) => {
    g.fillRect(padL + i * bw + 1, Yb(k), bw - 2, h - Yb(k));
  });
  g.fillStyle = '#8a96a3';
  g.fillText('anomalies per 15 s', padL + 4, 10);
  c.dataset.scaleMax = String(mx);
}

function renderStats(hosts) {
  const v = weightedCpu(hosts);
  document.getElementById('cpu-rolling').textContent = v == null ? '–' : (100 * v).toFixed(1) + '%';
  document.getElementById('cpu-ema').textContent = state.ema == null ? '–' : (100 * state.ema).toFixed(1) + '%';
  let rate = 0;
  for (const [, h] of hosts) {
    const r = h.latest;
    if (r && state.latestTs - r.ts < 3000) rate += r.requests_sum / Math.max(0.001, r.window_age_seconds);
  }
  document.getElementById('req-rate').textContent = rate.toFixed(1);
  // Every host's request rate, from the totals of the last ~10 s of ticks.
  const gh = state.globalsHist;
  let all = null;
  if (gh.length >= 2) {
    const a = gh[0], b = gh[gh.length - 1];
    if (b.ts > a.ts && a.requests_ingested_total != null && b.requests_ingested_total != null) {
      all = (b.requests_ingested_total - a.requests_ingested_total) / ((b.ts - a.ts) / 1000);
    }
  }
  setOptional('req-rate-all', all == null ? '–' : num(all));
  for (const el of document.querySelectorAll('.top-n-count')) el.textContent = String(hosts.length);
  document.getElementById('logs').innerHTML = '';
  for (const l of state.logs.slice(0, 15)) {
    const li = document.createElement('li'); li.textContent = l;
    document.getElementById('logs').appendChild(li);
  }
}

function renderProbe() {
  const fr = state.frames;
  let fps = 0, bytes = 0, events = 0;
  if (fr.length > 1) {
    const span = (fr[fr.length - 1][0] - fr[0][0]) / 1000;
    fps = span > 0 ? (fr.length - 1) / span : 0;
    for (const f of fr) bytes += f[1];
    bytes /= fr.length;
  }
  if (state.globals && fps > 0) events = state.globals.events_per_sec / fps;
  document.getElementById('probe-thresholds').textContent = state.thresholds.join(', ');
  document.getElementById('probe-fps').textContent = fps.toFixed(1);
  document.getElementById('probe-bytes').textContent = bytes ? (bytes / 1024).toFixed(1) + ' KB' : '–';
  document.getElementById('probe-events').textContent = events ? events.toFixed(1) : '–';
  document.getElementById('probe-totals').textContent = `${state.totalFrames} frames, ${(state.totalBytes / 1048576).toFixed(2)} MB`;
}

function redraw() {
  if (state.dirty) {
    state.dirty = false;
    // Forget hosts not seen for longer than the client-side retention.
    for (const [name, h] of state.hosts) {
      if (!h.latest || h.latest.ts < state.latestTs - KEEP_MS) state.hosts.delete(name);
    }
    const ranked = rankedHosts();
    assignColors(ranked);
    const shown = ranked.filter(([name]) => !state.hidden.has(name));
    renderHeader();
    renderTable(ranked);
    renderChart(shown);
    renderStats(shown);
  }
  setTimeout(redraw, REDRAW_MS);
}

async function pollHosts() {
  try {
    const r = await fetch('/metrics.json');
    const m = await r.json();
    if (m && m.stats && typeof m.stats.hosts === 'number') state.hostCount = m.stats.hosts;
    if (m && m.upstream) { state.upstream = m.upstream; renderStatus(); }
  } catch (e) { /* the aggregator is away; the socket reports it */ }
  setTimeout(pollHosts, 2000);
}

// ---- controls ----
function initControls() {
  const topSel = document.getElementById('top-n');
  if (![...topSel.options].some((o) => o.value === String(state.topN))) {
    const o = document.createElement('option'); o.textContent = String(state.topN); topSel.appendChild(o);
  }
  topSel.value = String(state.topN);
  document.getElementById('rank-by').value = state.by;
  const sig = document.getElementById('sigma');
  sig.value = String(state.sigma);
  document.getElementById('sigma-value').textContent = state.sigma.toFixed(1);
  topSel.onchange = () => { state.topN = parseInt(topSel.value, 10); sendTopN(); state.dirty = true; };
  document.getElementById('rank-by').onchange = (e) => { state.by = e.target.value; sendTopN(); state.dirty = true; };
  sig.oninput = () => { state.sigma = parseFloat(sig.value); document.getElementById('sigma-value').textContent = state.sigma.toFixed(1); state.dirty = true; };
  document.getElementById('show-bands').onchange = () => { state.dirty = true; };
  document.getElementById('show-raw').onchange = () => { state.dirty = true; };
}

initControls();
connect();
redraw();
pollHosts();

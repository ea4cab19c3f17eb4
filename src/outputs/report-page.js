/*
 * report.html's script (inlined by html.ts, after uPlot). It only draws: the chart data is computed in Node
 * and embedded as JSON in #petload-data. Each chart container gets data-colors (its series colours), which
 * the browser test uses to find the drawn lines.
 */
var PALETTE = ['#0072B2', '#E69F00', '#009E73', '#CC79A7', '#56B4E9', '#D55E00', '#000000'];
var STATUS = {
  sent: '#0072B2',
  s2xx: '#009E73',
  s4xx: '#E69F00',
  s429: '#CC79A7',
  s5xx: '#D55E00',
  errors: '#000000',
  p99: '#777777',
};

function fmtNum(v, unit) {
  if (v == null || !Number.isFinite(v)) return '-';
  if (v === 0) return unit ? '0 ' + unit : '0';
  var a = Math.abs(v);
  var s = a >= 100 ? Math.round(v).toString() : a >= 1 ? v.toFixed(1) : v.toFixed(2);
  return unit ? s + ' ' + unit : s;
}
function pctLabel(x) {
  if (x >= 1e6) return 'max';
  var p = 100 * (1 - 1 / x);
  return parseFloat(p.toFixed(4)) + '%';
}
function widthOf(el) {
  return Math.max(320, Math.floor(el.clientWidth || 800));
}
function zeroBased(u, min, max) {
  return [0, max > 0 ? max * 1.08 : 1];
}
/** What was thrown, as text: its message, else the value itself. */
function errorText(e) {
  if (!e) return String(e);
  return e.message ? e.message : String(e);
}
/** Draw the chart `build` describes into #id (if the page has it), and keep it in `charts` for resizing. */
function draw(charts, id, build) {
  var el = document.getElementById(id);
  if (!el) return;
  try {
    var spec = build();
    el.dataset.colors = JSON.stringify(spec.colors);
    spec.opts.width = widthOf(el);
    spec.opts.height = spec.opts.height || 220;
    charts.push({ el: el, plot: new uPlot(spec.opts, spec.data, el) });
  } catch (e) {
    el.textContent = 'This chart could not be drawn: ' + errorText(e);
    console.error(e);
  }
}
function line(label, color, unit, extra) {
  var s = {
    label: label,
    stroke: color,
    width: 2,
    value: (u, v) => fmtNum(v, unit),
  };
  for (var k in extra || {}) s[k] = extra[k];
  return s;
}
// uPlot's own tick labels: their precision follows the tick spacing, so short spans stay distinct.
var secondsAxis = { label: 'seconds since start (run clock)' };
var xSeconds = {
  label: 't',
  value: (u, v) => fmtNum(v, 's'),
};

// Operations whose latencies differ by orders of magnitude all stay readable on a log axis.
function latencyScale(series) {
  var all = [].concat.apply(
    [],
    series.map((s) => s.values),
  );
  var positive = all.filter((v) => v > 0);
  var lo = Math.min.apply(null, positive);
  var hi = Math.max.apply(null, all);
  var logY = positive.length > 0 && hi / lo > 30;
  var floor = lo / 2;
  var y = logY
    ? {
        distr: 3,
        log: 10,
        range: () => [floor, hi * 1.5],
      }
    : { range: zeroBased };
  return { logY: logY, floor: floor, y: y };
}

function latencyChart(lat) {
  var colors = lat.series.map((s, i) => PALETTE[i % PALETTE.length]);
  var scale = latencyScale(lat.series);
  var logY = scale.logY;
  var floor = scale.floor;
  var values = lat.series.map((s) => s.values.map((v) => (logY && v <= 0 ? floor : v)));
  return {
    colors: colors,
    data: [lat.x].concat(values),
    opts: {
      scales: { x: { time: false, distr: 3, log: 10 }, y: scale.y },
      axes: [
        {
          label: 'percentile',
          splits: (u) => [1, 10, 100, 1e3, 1e4, 1e5, 1e6].filter((v) => v >= u.scales.x.min && v <= u.scales.x.max),
          values: (u, vals) => vals.map(pctLabel),
        },
        {
          label: logY ? 'latency (ms, log scale)' : 'latency (ms)',
          size: 60,
          values: (u, vals) => vals.map((v) => fmtNum(v)),
        },
      ],
      series: [
        {
          label: 'percentile',
          value: (u, v) => (v == null ? '-' : pctLabel(v)),
        },
      ].concat(lat.series.map((s, i) => line(s.name, colors[i], 'ms', { points: { show: true, size: 5 } }))),
    },
  };
}

function rateChart(tl) {
  return {
    colors: [STATUS.sent, STATUS.p99],
    data: [tl.t, tl.sent, tl.p99],
    opts: {
      scales: { x: { time: false }, y: { range: zeroBased }, ms: { range: zeroBased } },
      axes: [
        secondsAxis,
        { label: 'requests / s', size: 60 },
        { label: 'p99 (ms)', scale: 'ms', side: 1, size: 60, grid: { show: false } },
      ],
      series: [
        xSeconds,
        line('sent / s', STATUS.sent, '/s'),
        line('p99', STATUS.p99, 'ms', { scale: 'ms', dash: [6, 4] }),
      ],
    },
  };
}

function statusChart(tl) {
  var names = [
    ['2xx', 's2xx'],
    ['4xx', 's4xx'],
    ['429', 's429'],
    ['5xx', 's5xx'],
    ['errors', 'errors'],
  ];
  return {
    colors: names.map((n) => STATUS[n[1]]),
    data: [tl.t].concat(names.map((n) => tl[n[1]])),
    opts: {
      scales: { x: { time: false }, y: { range: zeroBased } },
      axes: [secondsAxis, { label: 'responses / s', size: 60 }],
      series: [xSeconds].concat(names.map((n) => line(n[0], STATUS[n[1]], '/s'))),
    },
  };
}

function keyChart(k) {
  return {
    colors: ['#0072B2', '#999999', '#D55E00'],
    data: [k.t, k.remaining, k.limit, k.refused],
    opts: {
      height: 180,
      scales: { x: { time: false }, y: { range: zeroBased } },
      axes: [secondsAxis, { label: 'Remaining', size: 60 }],
      series: [
        xSeconds,
        line('Remaining', '#0072B2', '', { spanGaps: true, paths: uPlot.paths.stepped({ align: 1 }) }),
        line('Limit', '#999999', '', { spanGaps: true, dash: [6, 4], width: 1, points: { show: false } }),
        {
          label: '429',
          stroke: '#D55E00',
          paths: () => null,
          points: { show: true, size: 10, stroke: '#D55E00', fill: '#D55E00' },
          value: (u, v) => (v == null ? '-' : '429'),
        },
      ],
    },
  };
}

function drawCharts(data, charts) {
  if (data.latency) {
    draw(charts, 'chart-latency', () => latencyChart(data.latency));
  }
  if (data.timeline) {
    var tl = data.timeline;
    draw(charts, 'chart-rate', () => rateChart(tl));
    draw(charts, 'chart-status', () => statusChart(tl));
  }
  data.keys.forEach((k, i) => {
    draw(charts, 'chart-key-' + i, () => keyChart(k));
  });
}

function resizeWithWindow(charts) {
  var resizeTimer = null;
  window.addEventListener('resize', () => {
    clearTimeout(resizeTimer);
    resizeTimer = setTimeout(() => {
      charts.forEach((c) => {
        c.plot.setSize({ width: widthOf(c.el), height: c.plot.height });
      });
    }, 100);
  });
}

// The check table is collapsed: a link to it (the navigation, "and N more") or to one of its rows (the plan
// table's) opens it, and shows the row again if a filter hid it. The browser then scrolls to it.
function openChecksFor(id) {
  var d = document.getElementById('checks-section');
  var el = id ? document.getElementById(id) : null;
  if (!d || !el || (el !== d && !d.contains(el))) return;
  d.open = true;
  if (el.hidden) {
    var all = document.querySelector('[data-filter="all"]');
    if (all) all.click();
  }
}
function openChecks() {
  openChecksFor(location.hash.slice(1));
}
// Before the browser follows a link inside the page: open what it points into, so that it can scroll there.
function openBeforeFollowing() {
  document.addEventListener('click', (e) => {
    var a = e.target instanceof Element ? e.target.closest('a[href^="#"]') : null;
    if (a) openChecksFor(a.getAttribute('href').slice(1));
  });
}

// Check table filter: show the rows of one status, or all.
function filterChecksByStatus() {
  var buttons = document.querySelectorAll('[data-filter]');
  Array.prototype.forEach.call(buttons, (b) => {
    b.addEventListener('click', () => {
      var f = b.getAttribute('data-filter');
      Array.prototype.forEach.call(buttons, (o) => {
        o.setAttribute('aria-pressed', String(o === b));
      });
      Array.prototype.forEach.call(document.querySelectorAll('#checks tbody tr'), (row) => {
        row.hidden = f !== 'all' && row.getAttribute('data-status') !== f;
      });
    });
  });
}

(() => {
  var data = JSON.parse(document.getElementById('petload-data').textContent);
  var charts = [];
  drawCharts(data, charts);
  resizeWithWindow(charts);
  filterChecksByStatus();
  openBeforeFollowing();
  window.addEventListener('hashchange', openChecks);
  openChecks();
  // A row opened on load (a link to report.html#check_...): the page was laid out while it was collapsed.
  if (location.hash.length > 1) {
    var target = document.getElementById(location.hash.slice(1));
    if (target) target.scrollIntoView();
  }
})();

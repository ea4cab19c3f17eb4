/**
 * The live page's script, as text (page.ts inlines it after uPlot, so that the build has no asset to copy). It
 * reads one state snapshot per Server-Sent Event from `events` (relative to the page's token path) and writes it
 * into the page with textContent only: nothing it receives is ever parsed as HTML. It stops listening once the
 * run has ended, so that the page makes no request after the server is gone.
 */
export const PAGE_SCRIPT = `
(function () {
  'use strict';
  var COLORS = { sent: '#0072B2', s2xx: '#009E73', s4xx: '#E69F00', s429: '#CC79A7', s5xx: '#D55E00', errors: '#000000' };
  var byId = function (id) { return document.getElementById(id); };
  var plot = null;
  var over = false;

  function text(id, value) { byId(id).textContent = String(value); }
  function seconds(s) {
    if (s == null || !isFinite(s)) return '-';
    s = Math.max(0, Math.round(s));
    return s < 60 ? s + ' s' : Math.floor(s / 60) + ' min ' + (s % 60) + ' s';
  }
  function ms(v) { return v >= 100 ? Math.round(v) + ' ms' : v.toFixed(1) + ' ms'; }
  function cell(row, value, cls) {
    var td = document.createElement('td');
    td.textContent = String(value);
    if (cls) td.className = cls;
    row.appendChild(td);
    return td;
  }
  function rows(id, items, fill) {
    var body = byId(id).querySelector('tbody');
    var out = items.map(function (item) { var tr = document.createElement('tr'); fill(tr, item); return tr; });
    body.replaceChildren.apply(body, out);
  }

  function banner(s) {
    var word = s.ended ? String(s.ended.verdict).toUpperCase() : s.runPhase.toUpperCase();
    text('run-state', word);
    byId('banner').className = 'banner ' + (s.ended ? s.ended.verdict : 'running');
    text('title', 'petload live' + (s.scenario ? ': ' + s.scenario : ''));
    var parts = [];
    if (s.target) parts.push('against ' + s.target);
    parts.push(seconds(s.elapsedS) + ' elapsed');
    if (!s.ended && s.expectedS != null) parts.push('about ' + seconds(s.expectedS - s.elapsedS) + ' left of ' + seconds(s.expectedS));
    if (s.scale != null && s.scale !== 1) parts.push('run clock x' + s.scale);
    text('subtitle', parts.join(' · '));
  }

  function checks(c) {
    text('counts', c.failed + ' failed, ' + c.warned + ' warned, ' + c.passed + ' passed, ' + c.skipped + ' skipped');
    var list = byId('problems');
    list.replaceChildren.apply(list, c.problems.map(function (p) {
      var li = document.createElement('li');
      var badge = document.createElement('span');
      badge.className = 'status ' + (p.standing === 'failed' ? 'fail' : 'warn');
      badge.textContent = p.standing === 'failed' ? 'FAIL' : 'WARN';
      var code = document.createElement('code');
      code.textContent = p.id + (p.plan ? ' [' + p.plan + ']' : '');
      li.append(badge, ' ', code);
      if (p.message) { var why = document.createElement('div'); why.className = 'note mono'; why.textContent = p.message; li.append(why); }
      return li;
    }));
  }

  function traffic(t) {
    text('sent', t.sent);
    text('per-second', t.perSecond);
    var m = t.status;
    rows('status-mix', [['2xx', m.s2xx], ['4xx', m.s4xx], ['429', m.s429], ['5xx', m.s5xx], ['no answer', m.errors], ['other', m.other]],
      function (tr, r) { cell(tr, r[0]); cell(tr, r[1], 'num'); cell(tr, t.sent > 0 ? (100 * r[1] / t.sent).toFixed(1) + ' %' : '-', 'num'); });
    var sr = t.series;
    var data = [sr.t, sr.sent, sr.s2xx, sr.s4xx, sr.s429, sr.s5xx, sr.errors];
    var el = byId('chart-traffic');
    if (plot === null && sr.t.length >= 2 && typeof uPlot === 'function') {
      var names = [['sent', 'sent'], ['2xx', 's2xx'], ['4xx', 's4xx'], ['429', 's429'], ['5xx', 's5xx'], ['no answer', 'errors']];
      el.dataset.colors = JSON.stringify(names.map(function (n) { return COLORS[n[1]]; }));
      plot = new uPlot({
        width: Math.max(320, Math.floor(el.clientWidth || 800)), height: 220,
        scales: { x: { time: false }, y: { range: function (u, lo, hi) { return [0, hi > 0 ? hi * 1.08 : 1]; } } },
        axes: [{ label: 'seconds since the live page started (real time)' }, { label: 'responses / s', size: 60 }],
        series: [{ label: 't' }].concat(names.map(function (n) { return { label: n[0], stroke: COLORS[n[1]], width: 2 }; })),
      }, data, el);
    } else if (plot !== null) plot.setData(data);
  }

  function operations(ops) {
    rows('latency', ops, function (tr, o) { cell(tr, o.operation); cell(tr, o.count, 'num'); cell(tr, ms(o.p50Ms), 'num'); cell(tr, ms(o.p99Ms), 'num'); });
  }

  function keys(ks) {
    rows('keys', ks, function (tr, k) {
      var state = k.suspectedBan ? 'suspected banned' : k.heldBack ? 'held back (Retry-After)' : 'ok';
      cell(tr, k.label); cell(tr, k.plan || '-'); cell(tr, k.sent, 'num'); cell(tr, k.refused, 'num');
      cell(tr, k.remaining == null ? '-' : k.remaining, 'num'); cell(tr, state);
    });
  }

  function probes(ps) {
    rows('probes', ps, function (tr, p) {
      cell(tr, p.plan || '(no plan)'); cell(tr, p.done + ' / ' + p.total, 'num');
      cell(tr, p.running.join(', ') || (p.done >= p.total ? 'done' : '-')); cell(tr, p.leftS === 0 && p.done < p.total ? 'due now' : seconds(p.leftS), 'num');
    });
    byId('probes-empty').hidden = ps.length > 0;
  }

  function phase(p) {
    var bar = byId('phase-progress');
    if (!p) { text('phase', 'No load phase is running.'); bar.value = 0; return; }
    var share = p.totalMs > 0 ? Math.min(1, p.elapsedMs / p.totalMs) : 0;
    bar.value = share;
    text('phase', p.phase + ': ' + (p.totalMs > 0 ? Math.round(100 * share) + ' % of ' + seconds(p.totalMs / 1000) + ' (run clock)' : 'running') +
      '; ' + p.sent + ' sent, ' + p.rate.toFixed(1) + '/s (real)' + (p.p99Ms == null ? '' : ', p99 ' + ms(p.p99Ms)));
  }

  function ended(e) {
    var box = byId('end-notice');
    if (!e) { box.hidden = true; return; }
    box.hidden = false;
    text('end-text', 'The run has ended: ' + String(e.verdict).toUpperCase() + ', exit code ' + e.exitCode + (e.reason ? ' (' + e.reason + ')' : '') + '.');
    var link = byId('report-link');
    link.hidden = e.reportHref == null;
    if (e.reportHref != null) link.href = e.reportHref;
    text('report-file', e.reportFile == null ? 'no report was written' : e.reportFile);
  }

  function render(s) {
    banner(s); checks(s.checks); traffic(s.traffic); operations(s.operations); keys(s.keys); probes(s.probes); phase(s.phase); ended(s.ended);
    byId('main').dataset.updates = String(Number(byId('main').dataset.updates || '0') + 1);
  }

  var source = new EventSource('events');
  source.onmessage = function (m) {
    var s = JSON.parse(m.data);
    render(s);
    if (s.ended) { over = true; source.close(); text('connection', 'The run is over; this page no longer updates.'); }
    else text('connection', 'Live: updated every second.');
  };
  source.onerror = function () {
    if (!over) text('connection', 'Lost the connection to petload; trying again (the run goes on regardless).');
  };
})();
`;

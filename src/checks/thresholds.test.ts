import { describe, expect, it } from 'vitest';
import type { Clock } from '../core/clock.js';
import type { Exchange } from '../http/exchange.js';
import { createMetrics, type MetricsSnapshot } from '../metrics/recorder.js';
import { buildExchange, FIXED_NOW } from '../testing/exchange-builder.js';
import { parseThreshold, thresholdCheckId } from './thresholds.js';
import { evaluateThreshold, thresholdMessage } from './threshold-eval.js';

describe('parseThreshold: valid expressions and their normalised form', () => {
  it.each([
    ['p(95) < 250ms', 'p(95) < 250ms'],
    ['p(99)[listPets] < 500ms', 'p(99)[listPets] < 500ms'],
    ['p(99.9) <= 1s', 'p(99.9) <= 1s'],
    ['avg < 100ms', 'avg < 100ms'],
    ['max[createPet] < 2s', 'max[createPet] < 2s'],
    ['rate(429) < 1%', 'rate(429) < 1%'],
    ['rate(5xx) == 0', 'rate(5xx) == 0'],
    ['count(5xx) == 0', 'count(5xx) == 0'],
    ['count(429) < 10', 'count(429) < 10'],
    ['rate(dropped) == 0', 'rate(dropped) == 0'],
    ['rate(errors) < 0.5%', 'rate(errors) < 0.5%'],
    // The catalogue's forms.
    ['p95(listPets) < 250ms', 'p(95)[listPets] < 250ms'],
    ['rate(status=5xx) == 0', 'rate(5xx) == 0'],
    // Spacing, aliases and number spellings.
    ['  p(95)<250ms  ', 'p(95) < 250ms'],
    ['p999 < 2 s', 'p(99.9) < 2s'],
    ['p9999 < 2s', 'p(99.99) < 2s'],
    ['p5 > 1us', 'p(5) > 1us'],
    ['p(95.0) < 0250ms', 'p(95) < 250ms'],
    ['min[other] >= 10us', 'min[other] >= 10us'],
    ['med != 1s', 'med != 1s'],
    ['rate(2xx)[getPet] > 0.99', 'rate(2xx)[getPet] > 0.99'],
    ['count( status = 429 ) [ listPets ] <= 3', 'count(429)[listPets] <= 3'],
    ['rate(errors) < 0.5 %', 'rate(errors) < 0.5%'],
    ['p(0) > 0ms', 'p(0) > 0ms'],
    ['p(100) < 1s', 'p(100) < 1s'],
    // Traffic classes: the load's is the default and not written; the probes' must be asked for.
    ['count(429)[traffic=probes] > 0', 'count(429)[traffic=probes] > 0'],
    ['count(429)[traffic=load] == 0', 'count(429) == 0'],
    ['p95(listPets)[traffic=probes] < 500ms', 'p(95)[listPets,traffic=probes] < 500ms'],
    ['p(95)[ traffic = probes , listPets ] < 500ms', 'p(95)[listPets,traffic=probes] < 500ms'],
    ['rate(5xx)[getPet,traffic=load] == 0', 'rate(5xx)[getPet] == 0'],
  ])('%s', (text, expression) => {
    const t = parseThreshold(text);
    expect(t.expression).toBe(expression);
    expect(t.source).toBe(text.trim());
    // The normalised form parses to the same rule.
    expect({ ...parseThreshold(expression), source: t.source }).toEqual(t);
  });

  it('gives the parts of the rule', () => {
    expect(parseThreshold('p95(listPets) < 250ms')).toEqual({
      source: 'p95(listPets) < 250ms',
      expression: 'p(95)[listPets] < 250ms',
      metric: { kind: 'percentile', percentile: 95 },
      operation: 'listPets',
      traffic: 'load',
      comparison: '<',
      value: 250,
      unit: 'ms',
    });
    expect(parseThreshold('count(429)[traffic=probes] > 0')).toMatchObject({ operation: null, traffic: 'probes' });
    expect(parseThreshold('rate(status=429)[getPet] >= 0.5%')).toMatchObject({
      metric: { kind: 'rate', status: { kind: 'code', code: 429 } },
      operation: 'getPet',
      comparison: '>=',
      value: 0.5,
      unit: '%',
    });
    expect(parseThreshold('count(errors) != 3').metric).toEqual({ kind: 'count', status: { kind: 'errors' } });
    expect(parseThreshold('rate(4xx) == 0').metric).toEqual({ kind: 'rate', status: { kind: 'class', hundred: 4 } });
  });

  it('names the check after the normalised expression', () => {
    expect(thresholdCheckId(parseThreshold('p95(listPets)<250ms'))).toBe('threshold.p(95)[listPets] < 250ms');
    expect(thresholdCheckId(parseThreshold('rate(status=5xx) == 0'))).toBe('threshold.rate(5xx) == 0');
  });
});

describe('parseThreshold: invalid expressions', () => {
  const METRIC = 'a metric (p(N), pN, avg, min, med, max, rate(...) or count(...))';
  const COMPARISON = 'a comparison (<, <=, >, >=, == or !=)';
  const STATUS = 'a status (a code like 429, a class like 5xx, errors or dropped)';
  it.each([
    ['', `column 1: expected ${METRIC}, found end of input`],
    ['latency < 1s', `column 1: expected ${METRIC}, found "latency"`],
    ['P(95) < 1s', `column 1: expected ${METRIC}, found "P"`],
    ['(95) < 1s', `column 1: expected ${METRIC}, found "("`],
    ['p(95) < 250', 'column 12: expected a time unit (us, ms or s), found end of input'],
    ['p(95) < 250kb', 'column 12: expected a time unit (us, ms or s), found "kb"'],
    ['p(95) < 5%', 'column 10: expected a time unit (us, ms or s), found "%"'],
    ['p(101) < 1s', 'column 3: percentile must be from 0 to 100, found 101'],
    ['p(x) < 1s', 'column 3: expected a percentile (a number from 0 to 100), found "x"'],
    ['p(95 < 1s', 'column 6: expected ")", found "<"'],
    ['p101 < 1s', 'column 1: expected a percentile alias like p95 or p999, found "p101" (write p(N) for others)'],
    ['p(95) 250ms', `column 7: expected ${COMPARISON}, found "250ms"`],
    ['p(95) = 250ms', `column 7: expected ${COMPARISON}, found "="`],
    ['p(95) =< 250ms', `column 7: expected ${COMPARISON}, found "="`],
    ['p(95) <', 'column 8: expected a number, found end of input'],
    ['p(95) < ms', 'column 9: expected a number, found "ms"'],
    ['p(95) < -1ms', 'column 9: unexpected character "-"'],
    ['p(95) < 1.ms', 'column 9: expected a number, found "1.ms"'],
    ['p(95) < 250ms extra', 'column 15: expected end of input, found "extra"'],
    ['p(95) < 250ms;', 'column 14: unexpected character ";"'],
    [
      'p(95)[deletePet] < 1s',
      'column 7: expected an operation (listPets, createPet, getPet, listOrders, other), found "deletePet"',
    ],
    ['p(95)[listPets < 1s', 'column 16: expected "]", found "<"'],
    ['p95(listPets)[getPet] < 1s', 'column 15: the operation is already given as listPets'],
    ['p(95)[listPets,getPet] < 1s', 'column 16: the operation is already given as listPets'],
    ['p(95)[traffic=probes,traffic=load] < 1s', 'column 22: the traffic is already given as probes'],
    ['p(95)[traffic=all] < 1s', 'column 15: expected a traffic class (load or probes), found "all"'],
    ['p(95)[traffic probes] < 1s', 'column 15: expected "=", found "probes"'],
    [
      'p(95)[listPets,] < 1s',
      'column 16: expected an operation (listPets, createPet, getPet, listOrders, other) or traffic=a traffic class (load or probes), found "]"',
    ],
    [
      'p95(pets) < 1s',
      'column 5: expected an operation (listPets, createPet, getPet, listOrders, other), found "pets"',
    ],
    ['rate(418x) < 1%', `column 6: expected ${STATUS}, found "418x"`],
    ['rate(600) < 1%', `column 6: expected ${STATUS}, found "600"`],
    ['rate(6xx) < 1%', `column 6: expected ${STATUS}, found "6xx"`],
    ['rate() < 1%', `column 6: expected ${STATUS}, found ")"`],
    ['rate(429 < 1%', 'column 10: expected ")", found "<"'],
    ['rate 429 < 1%', 'column 6: expected "(", found "429"'],
    ['rate(status:5xx) == 0', 'column 12: unexpected character ":"'],
    ['rate(status 5xx) == 0', 'column 13: expected "=", found "5xx"'],
    ['rate(429) < 150%', 'column 13: a percentage must be from 0 to 100, found 150'],
    ['rate(429) < 5', 'column 13: a rate without % is a fraction from 0 to 1, found 5 (write 5% for a percentage)'],
    ['rate(429) < 5ms', 'column 14: expected % or nothing after a rate, found "ms"'],
    [
      'rate(dropped)[listPets] == 0',
      'column 14: dropped sends belong to no operation and no traffic class: remove the [...] scope',
    ],
    ['count(5xx) < 1%', 'column 15: expected a plain integer for a count, found unit "%"'],
    ['count(5xx) == 0.5', 'column 15: expected an integer for a count, found 0.5'],
  ])('%j', (text, message) => {
    expect(() => parseThreshold(text)).toThrow(
      expect.objectContaining({ code: 'E_USAGE', message: `invalid threshold "${text}": ${message}` }),
    );
  });
});

describe('evaluateThreshold', () => {
  const clock: Clock = { scale: 1, now: () => FIXED_NOW, monotonic: () => 60_000, sleep: () => Promise.resolve() };
  const at = (latencyMs: number, parts: Parameters<typeof buildExchange>[0] = {}): Exchange =>
    buildExchange({ ...parts, timing: { intended: 0, sent: 0, headers: latencyMs, done: latencyMs } });

  /**
   * listPets: 100 requests of 1..100 ms; 97 × 200, 2 × 429, 1 × 500.
   * createPet: 49 × 201 of 200 ms, 1 transport error after 900 ms. getPet: none. 5 dropped sends.
   */
  function run(): MetricsSnapshot {
    const m = createMetrics({ clock, startMono: 0 });
    for (let i = 1; i <= 100; i++) m.record(at(i, { status: i === 10 || i === 20 ? 429 : i === 30 ? 500 : 200 }));
    for (let i = 0; i < 49; i++) m.record(at(200, { operation: 'createPet', status: 201 }));
    m.record(
      at(900, { operation: 'createPet', status: null, headers: {}, error: { kind: 'timeout', message: 'timeout' } }),
    );
    m.dropped(5);
    return m.snapshot();
  }
  const snap = run();

  it.each([
    // Latency (HDR reports the top of a value's bucket: within 0.1%).
    ['p(95) < 250ms', 200, 'ms', true],
    ['p(99)[listPets] < 500ms', 99, 'ms', true],
    ['p95(listPets) < 90ms', 95, 'ms', false],
    ['p(99.9) <= 1s', 0.9, 's', true],
    ['p(50) >= 50000us', 75_000, 'us', true],
    ['avg < 100ms', 105, 'ms', false],
    ['avg[listPets] < 100ms', 50.5, 'ms', true],
    ['max[createPet] < 2s', 0.9, 's', true],
    ['min < 2ms', 1, 'ms', true],
    ['med[createPet] > 150ms', 200, 'ms', true],
    // Rates: count / requests in scope; exact at the boundary.
    ['rate(429) < 1%', (2 / 150) * 100, '%', false],
    ['rate(429) < 2%', (2 / 150) * 100, '%', true],
    ['rate(429)[listPets] <= 2%', 2, '%', true],
    ['rate(429)[listPets] < 2%', 2, '%', false],
    ['rate(5xx) == 0', 1 / 150, '', false],
    ['rate(status=5xx) == 0', 1 / 150, '', false],
    ['rate(5xx)[createPet] == 0', 0, '', true],
    ['rate(errors) < 0.5%', (1 / 150) * 100, '%', false],
    ['rate(errors)[createPet] <= 0.02', 0.02, '', true],
    ['rate(dropped) == 0', 5 / 155, '', false],
    ['rate(dropped) < 0.05', 5 / 155, '', true],
    ['rate(2xx) > 97%', (146 / 150) * 100, '%', true],
    // Counts.
    ['count(5xx) == 0', 1, '', false],
    ['count(429) < 10', 2, '', true],
    ['count(4xx) == 2', 2, '', true],
    ['count(2xx) == 146', 146, '', true],
    ['count(201) != 49', 49, '', false],
    ['count(errors)[listPets] == 0', 0, '', true],
    ['count(dropped) <= 5', 5, '', true],
  ] as const)('%s → %d %s, ok %s', (text, observed, unit, ok) => {
    const r = evaluateThreshold(parseThreshold(text), snap);
    expect(r.unit).toBe(unit);
    expect(r.ok).toBe(ok);
    expect(r.observed).not.toBeNull();
    expect(Math.abs(r.observed! - observed)).toBeLessThanOrEqual(observed / 1000 + 1e-12);
  });

  it.each(['p(99)[getPet] < 1s', 'avg[getPet] < 1s', 'rate(429)[getPet] < 1%', 'count(5xx)[getPet] == 0'])(
    'fails without data: %s',
    (text) => {
      expect(evaluateThreshold(parseThreshold(text), snap)).toEqual({
        observed: null,
        unit: parseThreshold(text).unit,
        ok: false,
      });
    },
  );

  it('fails every rule on a run that sent nothing', () => {
    const empty = createMetrics({ clock, startMono: 0 }).snapshot();
    for (const text of ['p(95) < 1s', 'rate(dropped) == 0', 'count(5xx) == 0', 'rate(429) < 1%']) {
      expect(evaluateThreshold(parseThreshold(text), empty)).toMatchObject({ observed: null, ok: false });
    }
  });

  it('says "no data" without a unit glued to it, and the value with its unit otherwise', () => {
    const empty = createMetrics({ clock, startMono: 0 }).snapshot();
    const none = evaluateThreshold(parseThreshold('p(95) < 250ms'), empty);
    expect(thresholdMessage('p(95) < 250ms', none)).toBe('p(95) < 250ms: observed no data (no request in its scope)');
    expect(thresholdMessage('count(5xx) == 0', evaluateThreshold(parseThreshold('count(5xx) == 0'), snap))).toBe(
      'count(5xx) == 0: observed 1',
    );
    expect(thresholdMessage('p(95) < 1s', { observed: 0.25, unit: 's', ok: true })).toBe('p(95) < 1s: observed 0.25s');
  });

  it('counts dropped sends even when none was sent', () => {
    const m = createMetrics({ clock, startMono: 0 });
    m.dropped(2);
    expect(evaluateThreshold(parseThreshold('rate(dropped) == 0'), m.snapshot())).toEqual({
      observed: 1,
      unit: '',
      ok: false,
    });
  });

  it("judges the load's traffic unless the rule selects the probes'", () => {
    const m = createMetrics({ clock, startMono: 0 });
    const load = { class: 'load', name: 'phase 1 (constant-rate)' } as const;
    const probes = { class: 'probes', name: 'enforce' } as const;
    for (let i = 1; i <= 20; i++) m.record({ ...at(2, { status: 200 }), traffic: load });
    // The enforce probe's deliberate refusals, and its slow burst.
    for (let i = 1; i <= 5; i++) m.record({ ...at(600, { status: 429 }), traffic: probes });
    const s = m.snapshot();
    expect(s.traffic).toEqual({ measured: 'load', load: ['phase 1 (constant-rate)'], probes: ['enforce'] });
    const judge = (text: string) => evaluateThreshold(parseThreshold(text), s);
    expect(judge('count(429) == 0')).toMatchObject({ observed: 0, ok: true });
    expect(judge('count(429)[traffic=probes] == 5')).toMatchObject({ observed: 5, ok: true });
    expect(judge('p(99) < 10ms')).toMatchObject({ ok: true });
    expect(judge('p(99)[listPets,traffic=probes] < 10ms')).toMatchObject({ ok: false });
    expect(judge('rate(2xx) == 1')).toMatchObject({ observed: 1, ok: true });
  });

  it("has no load data in a run without load: the probes' traffic is only judged when asked for", () => {
    const m = createMetrics({ clock, startMono: 0 });
    m.record({ ...at(3, { status: 429 }), traffic: { class: 'probes', name: 'enforce' } });
    const s = m.snapshot();
    expect(s.traffic?.measured).toBe('probes');
    expect(s.probeOperations).toBeUndefined();
    expect(evaluateThreshold(parseThreshold('count(429) == 0'), s)).toMatchObject({ observed: null, ok: false });
    expect(evaluateThreshold(parseThreshold('count(429)[traffic=probes] == 1'), s)).toMatchObject({ ok: true });
  });

  it('reads a report of an older version (no traffic classes) as the load', () => {
    const { traffic: _t, probeOperations: _p, ...legacy } = snap;
    expect(evaluateThreshold(parseThreshold('count(429) < 10'), legacy)).toMatchObject({ observed: 2, ok: true });
    expect(evaluateThreshold(parseThreshold('count(429)[traffic=probes] < 10'), legacy).observed).toBeNull();
  });
});

/**
 * Thresholds: pass/fail rules on a run's metrics, from a scenario or `--threshold`. Each becomes the check
 * `threshold.<expression>`, the expression normalised so that two spellings of one rule share one id. This file
 * parses them; threshold-eval.ts judges them on a run's metrics.
 */
import { OPERATION_IDS } from '../api/operations.js';
import { PetloadError } from '../core/errors.js';
import type { TrafficClass } from '../http/exchange.js';
import type { OperationName } from '../metrics/recorder.js';
import type { ThresholdCheckId } from './catalogue.js';

/**
 * The operations a threshold may name (the metrics' own list, built here from the interface so that parsing a
 * scenario loads no metrics code: `petload validate` starts fast). Their evaluation is threshold-eval.ts.
 */
const OPERATION_NAMES: readonly OperationName[] = [...OPERATION_IDS, 'other'];

export type Comparison = '<' | '<=' | '>' | '>=' | '==' | '!=';
export type TimeUnit = 'us' | 'ms' | 's';

export type StatusSelector =
  | { kind: 'code'; code: number }
  /** `hundred` 4 is 4xx: 400..499, 429 included. */
  | { kind: 'class'; hundred: number }
  | { kind: 'errors' }
  | { kind: 'dropped' };

export type LatencyMetric = { kind: 'percentile'; percentile: number } | { kind: 'avg' | 'min' | 'med' | 'max' };
export type RateMetric = { kind: 'rate'; status: StatusSelector };
export type CountMetric = { kind: 'count'; status: StatusSelector };
export type ThresholdMetric = LatencyMetric | RateMetric | CountMetric;

/** A metric with the unit its value is in: a time unit for latency, `%` or `` (a fraction) for a rate, none for a count. */
export type Measure =
  | { metric: LatencyMetric; unit: TimeUnit }
  | { metric: RateMetric; unit: '%' | '' }
  | { metric: CountMetric; unit: '' };

export type Threshold = Measure & {
  /** The expression as written (trimmed). */
  source: string;
  /** The normalised expression, e.g. `p(95)[listPets] < 250ms` for `p95(listPets)<250ms`. */
  expression: string;
  /** The operation the rule is scoped to; null: all requests. */
  operation: OperationName | null;
  /** The traffic it judges: the load's (default), or the probes' when it says `traffic=probes`. */
  traffic: TrafficClass;
  comparison: Comparison;
  value: number;
};

/*
 * Grammar (whitespace is allowed between tokens):
 *
 *   threshold  = metric [scope] comparison value
 *   metric     = "p(" number ")"                        latency percentile, 0..100
 *              | "p" digit [digit] ["(" operation ")"]  alias: p95 = p(95); p95(listPets) = p(95)[listPets]
 *              | "p99" digits ["(" operation ")"]       alias: p999 = p(99.9), p9999 = p(99.99)
 *              | "avg" | "min" | "med" | "max"          latency statistics
 *              | ("rate" | "count") "(" ["status" "="] status ")"
 *   status     = digit digit digit                      a status code, 100..599 (e.g. 429)
 *              | digit "xx"                             a class, 1xx..5xx (4xx includes 429)
 *              | "errors"                               transport errors: no response
 *              | "dropped"                              sends that could not start on time (no scope)
 *   scope      = "[" item { "," item } "]"              at most one operation and one traffic
 *   item       = operation | "traffic" "=" traffic
 *   operation  = "listPets" | "createPet" | "getPet" | "other"
 *   traffic    = "load" | "probes"                      default load: the load phases' requests; probes: the
 *                                                       probes' own (their bursts and deliberate 429s)
 *   comparison = "<" | "<=" | ">" | ">=" | "==" | "!="
 *   value      = number [unit]
 *   unit       = "us" | "ms" | "s"                      required after a latency metric
 *              | "%"                                    rate only; a rate without % is a fraction 0..1
 *   number     = digits ["." digits]                    count takes an integer and no unit
 *
 * Latency is measured from the intended send time. rate = matching requests / requests in scope
 * (dropped: dropped / (requests + dropped)). Every rule judges one traffic class: the load's unless it says
 * `traffic=probes` (`count(429)[traffic=probes] > 0`, `p(95)[listPets,traffic=probes] < 500ms`).
 */

interface Token {
  kind: 'word' | 'punct' | 'comparison' | 'end';
  text: string;
  /** 0-based offset in the source text. */
  pos: number;
}

const COMPARISONS: readonly Comparison[] = ['<=', '>=', '==', '!=', '<', '>'];
const WORD = /[A-Za-z0-9_.]/;
const NUMBER = /^\d+(\.\d+)?$/;
const VALUE = /^(\d+(?:\.\d+)?)([A-Za-z]*)$/;
const STATS = ['avg', 'min', 'med', 'max'] as const;
const METRIC_EXPECTED = 'a metric (p(N), pN, avg, min, med, max, rate(...) or count(...))';
const OPERATION_EXPECTED = `an operation (${OPERATION_NAMES.join(', ')})`;
const STATUS_EXPECTED = 'a status (a code like 429, a class like 5xx, errors or dropped)';
const TIME_UNIT_EXPECTED = 'a time unit (us, ms or s)';
const TRAFFIC_EXPECTED = 'a traffic class (load or probes)';

function describe(t: Token): string {
  return t.kind === 'end' ? 'end of input' : `"${t.text}"`;
}

function tokenize(text: string, fail: (pos: number, message: string) => never): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    const cmp = COMPARISONS.find((op) => text.startsWith(op, i));
    if (cmp !== undefined) {
      tokens.push({ kind: 'comparison', text: cmp, pos: i });
      i += cmp.length;
    } else if ('()[]=%,'.includes(c)) {
      tokens.push({ kind: 'punct', text: c, pos: i });
      i++;
    } else if (WORD.test(c)) {
      const start = i;
      while (i < text.length && WORD.test(text[i]!)) i++;
      tokens.push({ kind: 'word', text: text.slice(start, i), pos: start });
    } else {
      fail(i, `unexpected character "${c}"`);
    }
  }
  tokens.push({ kind: 'end', text: '', pos: text.length });
  return tokens;
}

function isOperation(word: string): word is OperationName {
  return (OPERATION_NAMES as readonly string[]).includes(word);
}

/** The parser's cursor, for the parts of an expression parsed apart. */
interface Cursor {
  peek(): Token;
  next(): Token;
  expected(t: Token, what: string): never;
  expectPunct(ch: string): Token;
  parseOperation(): OperationName;
  fail(pos: number, message: string): never;
}

/** `[listPets]`, `[traffic=probes]`, `[listPets,traffic=probes]`, or nothing: the operation and the traffic class. */
function parseScope(
  p: Cursor,
  metric: ThresholdMetric,
  given: OperationName | null,
): { operation: OperationName | null; traffic: TrafficClass } {
  let operation = given;
  let traffic: TrafficClass | null = null;
  if (p.peek().kind !== 'punct' || p.peek().text !== '[') return { operation, traffic: 'load' };
  const open = p.next();
  if ('status' in metric && metric.status.kind === 'dropped')
    p.fail(open.pos, 'dropped sends belong to no operation and no traffic class: remove the [...] scope');
  do {
    const item = p.peek();
    if (item.kind === 'word' && item.text === 'traffic') {
      p.next();
      if (traffic !== null) p.fail(item.pos, `the traffic is already given as ${traffic}`);
      p.expectPunct('=');
      const t = p.next();
      traffic =
        t.kind === 'word' && (t.text === 'load' || t.text === 'probes') ? t.text : p.expected(t, TRAFFIC_EXPECTED);
    } else {
      if (item.kind !== 'word') p.expected(item, `${OPERATION_EXPECTED} or traffic=${TRAFFIC_EXPECTED}`);
      if (operation !== null) p.fail(item.pos, `the operation is already given as ${operation}`);
      operation = p.parseOperation();
    }
  } while (p.peek().kind === 'punct' && p.peek().text === ',' && p.next());
  p.expectPunct(']');
  return { operation, traffic: traffic ?? 'load' };
}

/** Parses one threshold expression; throws a PetloadError (E_USAGE) naming the column and what was expected. */
export function parseThreshold(text: string): Threshold {
  const fail = (pos: number, message: string): never => {
    throw new PetloadError('E_USAGE', `invalid threshold "${text}": column ${pos + 1}: ${message}`);
  };
  const tokens = tokenize(text, fail);
  let i = 0;
  const peek = (): Token => tokens[i]!;
  const next = (): Token => tokens[i++]!;
  const expected = (t: Token, what: string): never => fail(t.pos, `expected ${what}, found ${describe(t)}`);
  const expectPunct = (ch: string): Token => {
    const t = next();
    return t.kind === 'punct' && t.text === ch ? t : expected(t, `"${ch}"`);
  };
  const parseNumber = (what: string): { value: number; token: Token } => {
    const t = next();
    return t.kind === 'word' && NUMBER.test(t.text) ? { value: Number(t.text), token: t } : expected(t, what);
  };
  const parseOperation = (): OperationName => {
    const t = next();
    return t.kind === 'word' && isOperation(t.text) ? t.text : expected(t, OPERATION_EXPECTED);
  };

  // metric
  let operation: OperationName | null = null;
  let metric: ThresholdMetric;
  const m = next();
  if (m.kind !== 'word') return expected(m, METRIC_EXPECTED);
  if (m.text === 'p') {
    expectPunct('(');
    const { value, token } = parseNumber('a percentile (a number from 0 to 100)');
    if (value > 100) fail(token.pos, `percentile must be from 0 to 100, found ${token.text}`);
    metric = { kind: 'percentile', percentile: value };
    expectPunct(')');
  } else if (/^p\d+$/.test(m.text)) {
    const digits = m.text.slice(1);
    if (digits.length > 2 && !digits.startsWith('99'))
      fail(m.pos, `expected a percentile alias like p95 or p999, found "${m.text}" (write p(N) for others)`);
    metric = { kind: 'percentile', percentile: Number(digits.length <= 2 ? digits : `99.${digits.slice(2)}`) };
    if (peek().kind === 'punct' && peek().text === '(') {
      next();
      operation = parseOperation();
      expectPunct(')');
    }
  } else if ((STATS as readonly string[]).includes(m.text)) {
    metric = { kind: m.text as (typeof STATS)[number] };
  } else if (m.text === 'rate' || m.text === 'count') {
    expectPunct('(');
    if (peek().kind === 'word' && peek().text === 'status') {
      next();
      expectPunct('=');
    }
    const s = next();
    let status: StatusSelector;
    if (s.kind === 'word' && /^\d{3}$/.test(s.text) && Number(s.text) >= 100 && Number(s.text) <= 599) {
      status = { kind: 'code', code: Number(s.text) };
    } else if (s.kind === 'word' && /^[1-5]xx$/.test(s.text)) {
      status = { kind: 'class', hundred: Number(s.text[0]) };
    } else if (s.kind === 'word' && (s.text === 'errors' || s.text === 'dropped')) {
      status = { kind: s.text };
    } else {
      status = expected(s, STATUS_EXPECTED);
    }
    expectPunct(')');
    metric = { kind: m.text, status };
  } else {
    metric = expected(m, METRIC_EXPECTED);
  }

  // scope
  const scope = parseScope({ peek, next, expected, expectPunct, parseOperation, fail }, metric, operation);
  operation = scope.operation;
  const traffic = scope.traffic;

  // comparison
  const c = next();
  const comparison =
    c.kind === 'comparison' ? (c.text as Comparison) : expected(c, 'a comparison (<, <=, >, >=, == or !=)');

  // value and unit
  const v = next();
  const parts = v.kind === 'word' ? VALUE.exec(v.text) : null;
  if (parts === null) return expected(v, 'a number');
  const [, digits = '', suffix = ''] = parts;
  const value = Number(digits);
  let unit = suffix;
  let unitPos = v.pos + digits.length;
  if (unit === '' && (peek().kind === 'word' || (peek().kind === 'punct' && peek().text === '%'))) {
    const u = next();
    unit = u.text;
    unitPos = u.pos;
  }
  const end = peek();
  if (end.kind !== 'end') expected(end, 'end of input');

  const measure = measureOf(metric, unit, value, { value: v, unitPos }, fail);
  const threshold = { source: text.trim(), ...measure, operation, traffic, comparison, value };
  return { ...threshold, expression: formatExpression(threshold) };
}

/** The metric with its unit, or a failure naming what the metric takes. */
function measureOf(
  metric: ThresholdMetric,
  unit: string,
  value: number,
  at: { value: Token; unitPos: number },
  fail: (pos: number, message: string) => never,
): Measure {
  if (metric.kind === 'rate') {
    if (unit !== '' && unit !== '%') fail(at.unitPos, `expected % or nothing after a rate, found "${unit}"`);
    if (unit === '%' && value > 100) fail(at.value.pos, `a percentage must be from 0 to 100, found ${value}`);
    if (unit === '' && value > 1)
      fail(
        at.value.pos,
        `a rate without % is a fraction from 0 to 1, found ${value} (write ${value}% for a percentage)`,
      );
    return { metric, unit: unit as '%' | '' };
  }
  if (metric.kind === 'count') {
    if (unit !== '') fail(at.unitPos, `expected a plain integer for a count, found unit "${unit}"`);
    if (!Number.isInteger(value)) fail(at.value.pos, `expected an integer for a count, found ${at.value.text}`);
    return { metric, unit: '' };
  }
  if (unit !== 'us' && unit !== 'ms' && unit !== 's') {
    // Any word or % after the number was taken as its unit, so a missing unit means the input ended there.
    return fail(at.unitPos, `expected ${TIME_UNIT_EXPECTED}, found ${unit === '' ? 'end of input' : `"${unit}"`}`);
  }
  return { metric, unit };
}

function formatMetric(metric: ThresholdMetric): string {
  switch (metric.kind) {
    case 'percentile':
      return `p(${metric.percentile})`;
    case 'rate':
    case 'count': {
      const s = metric.status;
      const sel = s.kind === 'code' ? String(s.code) : s.kind === 'class' ? `${s.hundred}xx` : s.kind;
      return `${metric.kind}(${sel})`;
    }
    default:
      return metric.kind;
  }
}

/** The normalised expression: the load's traffic is the default and not written (older ids stay the same). */
function formatExpression(t: Omit<Threshold, 'expression'>): string {
  const items = [...(t.operation === null ? [] : [t.operation]), ...(t.traffic === 'probes' ? ['traffic=probes'] : [])];
  const scope = items.length === 0 ? '' : `[${items.join(',')}]`;
  return `${formatMetric(t.metric)}${scope} ${t.comparison} ${t.value}${t.unit}`;
}

export function thresholdCheckId(t: Threshold): ThresholdCheckId {
  return `threshold.${t.expression}`;
}

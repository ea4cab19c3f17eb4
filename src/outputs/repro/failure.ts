/**
 * A failed check on one plan, as a recipe reads it from report.json alone: the outcome (evidence, info), the keys
 * of the report with their figures, and the helpers that turn a piece of evidence back into a request.
 */
import type { CheckResult, KeyLimits, Report } from '../../report/schema.js';
import type { Call, Credential } from './steps.js';

export type Outcome = CheckResult['byPlan'][number];
export type Evidence = Outcome['evidence'][number];

export interface Failure {
  readonly report: Report;
  readonly check: CheckResult;
  readonly outcome: Outcome;
}

/** The credentials of the auth and quota-drain probes that are no key, by their evidence label. */
const NOT_KEYS: Readonly<Record<string, string>> = {
  'unknown key': 'Bearer petload-repro-not-a-key',
  'empty Bearer': 'Bearer ',
  'Basic credential': `Basic ${Buffer.from('petload:not-a-key').toString('base64')}`,
};

/**
 * The environment variable that holds a key, named after its label: `free#1 (…5d16)` -> `PETLOAD_KEY_FREE_1` (the
 * name before the last four characters, upper-cased, anything but letters and digits made `_`).
 */
export function keyVariable(label: string): string {
  const name = label.replace(/\s*\(…[^)]*\)\s*$/u, '');
  const word = name
    .toUpperCase()
    .replace(/[^A-Z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '');
  return `PETLOAD_KEY_${word || 'KEY'}`;
}

export const keyCredential = (label: string): Credential => ({ kind: 'key', variable: keyVariable(label), label });

/** Who the evidence's request was sent as, or null when the label is neither a key of the report nor a known credential. */
export function credentialOf(report: Report, label: string | undefined): Credential | null {
  if (label === undefined) return { kind: 'none' };
  if (report.keys.some((k) => k.label === label)) return keyCredential(label);
  const header = NOT_KEYS[label];
  return header === undefined ? null : { kind: 'fixed', header, what: label };
}

/** The request of a piece of evidence (`POST /pets body={...}`), or null when it cannot be sent again as it was. */
export function callOf(report: Report, e: Evidence): Call | null {
  const m = /^([A-Z]+) (\/\S*)(?: body=([\s\S]*))?$/.exec(e.request ?? '');
  const as = credentialOf(report, e.key);
  if (m === null || as === null) return null;
  const body = m[3];
  // A body cut short in the report (`…` at its end) is not the body that was sent.
  if (body?.endsWith('…')) return null;
  return { method: m[1]!, path: m[2]!, as, ...(body !== undefined ? { body } : {}) };
}

/** The figures of the key with that label (absent in reports of older versions). */
export function limitsOf(report: Report, label: string): KeyLimits | undefined {
  return report.keys.find((k) => k.label === label)?.limits;
}

/** The most requests the key's minute may accept: its figure with the declared tolerance. */
export function allowedPerMinute(limits: KeyLimits): number {
  return Math.floor(limits.perMinute * (1 + (limits.tolerancePercent ?? 0) / 100));
}

/** The distinct requests of the outcome's evidence that can be sent again, in their order (at most `max`). */
export function replayableCalls(f: Failure, max = 3, keep: (e: Evidence) => boolean = () => true): Call[] {
  const seen = new Set<string>();
  const out: Call[] = [];
  for (const e of f.outcome.evidence) {
    const call = keep(e) ? callOf(f.report, e) : null;
    if (call === null) continue;
    const id = `${call.method} ${call.path} ${call.body ?? ''} ${JSON.stringify(call.as)}`;
    if (seen.has(id)) continue;
    seen.add(id);
    out.push(call);
    if (out.length === max) break;
  }
  return out;
}

/** The key the failure was seen on: the first evidence's key that is a key of the report. */
export function keyOfFailure(f: Failure): string | undefined {
  return f.outcome.evidence.map((e) => e.key).find((k) => k !== undefined && f.report.keys.some((x) => x.label === k));
}

/** Words for a call in a step line: `GET /pets?limit=1 with PETLOAD_KEY_FREE_1`. */
export function callWords(c: Call): string {
  const as =
    c.as.kind === 'key' ? `with ${c.as.variable}` : c.as.kind === 'none' ? 'without a key' : `with ${c.as.what}`;
  return `${c.method} ${c.path}${c.body !== undefined ? ` body=${c.body}` : ''} ${as}`;
}

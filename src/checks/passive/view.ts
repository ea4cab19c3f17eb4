/**
 * What every passive check reads from one exchange, worked out once: the reference time, the media type,
 * whether the body can be judged (and if not, which check owns that defect), the plan's figures.
 * Also the Recorder, the checks' only way to write into the Ledger.
 */
import { DAY_S, MINUTE_S, windowOfLimit, type PlanLimits, type PlanName } from '../../api/plans.js';
import { onlyValue, type Exchange } from '../../http/exchange.js';
import { serverTimeOf, serverTimeSource } from '../../http/server-time.js';
import type { CheckId } from '../catalogue.js';
import type { Ledger } from '../ledger.js';
import { see, type SkipReason } from '../skip-reason.js';

/** A body the checks may judge, or the reason they may not (naming the check that judges that defect). */
export type BodyRead = { kind: 'none' } | { kind: 'json'; value: unknown } | { kind: 'unusable'; reason: SkipReason };

export interface View {
  readonly ex: Exchange;
  readonly status: number | null;
  /**
   * Epoch ms for time arithmetic, on the server's timeline (http/server-time.ts): its Date when present once and valid,
   * else the server's clock as an earlier answer's Date showed it, else the local clock.
   */
  readonly nowMs: number;
  readonly nowSource: ReturnType<typeof serverTimeSource>;
  /** Lower-cased `type/subtype` of a single Content-Type header; null when absent or repeated. */
  readonly mediaType: string | null;
  readonly body: BodyRead;
  /** The figures of the exchange's key (its own, else its plan's), when it was sent with a valid key of a known plan. */
  readonly planLimits: PlanLimits | undefined;
}

export const JSON_MEDIA_TYPE = 'application/json';

/** Whether a media type declares JSON: application/json or a `+json` suffix (RFC 6839), as the client decodes. */
export function declaresJson(mediaType: string | null): boolean {
  return mediaType !== null && (mediaType === JSON_MEDIA_TYPE || mediaType.endsWith('+json'));
}

export const REASONS = {
  transportBody: see('body not judged: the exchange failed in transport', 'contract.transport'),
  unparseableBody: see(
    'body not judged: it does not parse as the JSON its Content-Type declares',
    'contract.transport',
  ),
  notJsonBody: see('body not judged: it is not JSON', 'contract.json-content-type'),
  tooLargeBody: 'body not judged: larger than the read cap',
} as const;

function mediaTypeOf(ex: Exchange): string | null {
  const v = onlyValue(ex.headers, 'content-type');
  if (v === undefined) return null;
  const semi = v.indexOf(';');
  return (semi === -1 ? v : v.slice(0, semi)).trim().toLowerCase();
}

function bodyOf(ex: Exchange, mediaType: string | null): BodyRead {
  const b = ex.body;
  // A body that arrived alongside a transport error (truncated, reset mid-body) is not the target's answer;
  // nor is the absence of one: the body may simply not have arrived.
  if (ex.error !== null) return { kind: 'unusable', reason: REASONS.transportBody };
  if (b.kind === 'none') return b;
  switch (b.kind) {
    case 'json':
      // Parsed JSON is judged even under a wrong Content-Type: the header is json-content-type's business. The
      // decoded body itself is the read (it has kind and value), shared like the value it holds.
      return b;
    case 'text':
      return { kind: 'unusable', reason: REASONS.notJsonBody };
    case 'unparseable':
      return { kind: 'unusable', reason: declaresJson(mediaType) ? REASONS.unparseableBody : REASONS.notJsonBody };
    case 'too-large':
      return { kind: 'unusable', reason: REASONS.tooLargeBody };
  }
}

/**
 * What a probe may read of an exchange's body, by the same rule as the passive checks: the JSON value, none, or
 * why not (naming the check that judges that defect: contract.transport, contract.json-content-type).
 */
export function bodyReadOf(ex: Exchange): BodyRead {
  return bodyOf(ex, mediaTypeOf(ex));
}

/** Builds views. `keyLimits`: keys whose own figures differ from their plan's, by label. */
export function createViewer(
  plans: ReadonlyMap<PlanName, PlanLimits>,
  keyLimits?: ReadonlyMap<string, PlanLimits>,
): (ex: Exchange) => View {
  const limitsOf = (ex: Exchange): PlanLimits | undefined => {
    if (ex.auth !== 'valid' || ex.plan === null) return undefined;
    return (
      (keyLimits !== undefined && ex.keyLabel !== null ? keyLimits.get(ex.keyLabel) : undefined) ?? plans.get(ex.plan)
    );
  };
  return (ex) => {
    // Parsed once, on the exchange (the key states read it too); the responses of one second share the text.
    const mediaType = mediaTypeOf(ex);
    return {
      ex,
      status: ex.status,
      nowMs: serverTimeOf(ex),
      nowSource: serverTimeSource(ex),
      mediaType,
      body: bodyOf(ex, mediaType),
      planLimits: limitsOf(ex),
    };
  };
}

/**
 * The window (seconds) a Limit describes: the plan's minute or day. A Limit that cannot be tied to a
 * figure of the key's plan (no valid key, unusable Limit, or a figure of neither window) gets the day:
 * the lenient bound, so that a check never fails a response for a window it cannot know.
 */
export function windowSeconds(limit: number | null, planLimits: PlanLimits | undefined): number {
  if (limit === null || planLimits === undefined) return DAY_S;
  return windowOfLimit(limit, planLimits) === 'minute' ? MINUTE_S : DAY_S;
}

export function is2xx(status: number | null): boolean {
  return status !== null && status >= 200 && status < 300;
}

/** Records outcomes under the exchange's plan. */
export interface Recorder {
  pass(id: CheckId, ex: Exchange): void;
  fail(id: CheckId, ex: Exchange, message: string): void;
  /**
   * `reason` should be a fixed sentence (the Ledger keeps 5 distinct ones), with a typed reference to the check that
   * judges the missing property (src/checks/skip-reason.ts).
   */
  skip(id: CheckId, ex: Exchange, reason: SkipReason): void;
  /** A fact of a passive check that declares info (src/report/check-info.ts): what became of a query parameter. */
  info(id: 'list.limit-out-of-range' | 'list.invalid-status', ex: Exchange, key: string, value: string): void;
}

/** Distinct info keys kept per check: request values come from scenarios and must not grow the report without bound. */
const MAX_INFO_KEYS = 16;

export function createRecorder(ledger: Ledger): Recorder {
  const infoKeys = new Map<CheckId, Set<string>>();
  return {
    pass: (id, ex) => ledger.pass(id, ex.plan),
    fail: (id, ex, message) => ledger.fail(id, ex.plan, message, ex),
    skip: (id, ex, reason) => ledger.skip(id, ex.plan, reason),
    info: (id, ex, key, value) => {
      let keys = infoKeys.get(id);
      if (keys === undefined) infoKeys.set(id, (keys = new Set()));
      if (!keys.has(key)) {
        if (keys.size >= MAX_INFO_KEYS) return;
        keys.add(key);
      }
      ledger.info(id, ex.plan, key, value);
    },
  };
}

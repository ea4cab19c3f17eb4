/**
 * Contract checks on every exchange: transport, server errors, documented statuses, content type,
 * error bodies. Each judges one property; bodies it cannot read are skipped naming the owning check.
 */
import { OPERATIONS } from '../../api/operations.js';
import { ErrorBody } from '../../api/schemas.js';
import { headerValues, type Exchange } from '../../http/exchange.js';
import { formatIssues } from '../../core/zod-issues.js';
import type { RequestScope } from './request.js';
import { see } from '../skip-reason.js';
import { declaresJson, is2xx, JSON_MEDIA_TYPE, type Recorder, type View } from './view.js';

/** At most this many schema issues are spelled out in one failure message. */
const MAX_ISSUES = 3;
const FIVE_XX = see('a 5xx is judged', 'contract.no-server-errors');
const BODY_OF_429 = see('a 429 body is judged', 'retry-after.error-body');

/** One line of at most MAX_ISSUES zod issues, located by path. */
export function issueSummary(error: Parameters<typeof formatIssues>[0], input: unknown): string {
  const lines = formatIssues(error, input);
  const more = lines.length > MAX_ISSUES ? ` (+${lines.length - MAX_ISSUES} more)` : '';
  return lines.slice(0, MAX_ISSUES).join('; ') + more;
}

/**
 * contract.transport: a whole HTTP response, and a body that parses as its Content-Type says.
 * Chosen: a body over the read cap is not a transport failure (the content is simply big; the checks
 * that need it skip it); an exchange aborted by petload itself (interrupt, ban guard) is skipped.
 */
export function judgeTransport(v: View, r: Recorder): void {
  const { ex } = v;
  if (ex.error?.kind === 'aborted') return r.skip('contract.transport', ex, 'aborted by petload itself, not judged');
  if (ex.error !== null) return r.fail('contract.transport', ex, `no whole HTTP response (${ex.error.kind})`);
  if (ex.status === null) return r.fail('contract.transport', ex, 'no HTTP response');
  if (ex.body.kind === 'unparseable' && declaresJson(v.mediaType)) {
    return r.fail('contract.transport', ex, `the body declared ${v.mediaType ?? ''} does not parse: ${ex.body.error}`);
  }
  r.pass('contract.transport', ex);
}

/** A 5xx that carries the signs of a rate-limit refusal (Retry-After, or Remaining 0): an over-limit answer. */
export function isOverLimit5xx(ex: Pick<Exchange, 'status' | 'headers'>): boolean {
  if (ex.status === null || ex.status < 500) return false;
  return (
    headerValues(ex.headers, 'retry-after').length > 0 ||
    headerValues(ex.headers, 'x-ratelimit-remaining').some((x) => x.trim() === '0')
  );
}

/**
 * A refusal by the rate limit: a 429, or an over-limit 5xx (contract.no-server-errors and ratelimit.enforced judge
 * that it is not a 429). Checks of other properties skip such answers: the request was refused before it was judged.
 */
export function isRateLimitRefusal(ex: Pick<Exchange, 'status' | 'headers'>): boolean {
  return ex.status === 429 || isOverLimit5xx(ex);
}

/** contract.no-server-errors: no 5xx, ever; an over-limit answer in particular must be 429. */
export function judgeNoServerErrors(v: View, r: Recorder): void {
  const { ex, status } = v;
  if (status === null) return;
  if (status < 500) return r.pass('contract.no-server-errors', ex);
  const overLimit = isOverLimit5xx(ex);
  r.fail(
    'contract.no-server-errors',
    ex,
    `server error ${status}${overLimit ? ' with rate-limit signs (Retry-After or Remaining 0): an over-limit answer must be 429' : ''}`,
  );
}

/**
 * contract.documented-status: the status is one the interface lists for the operation; a request outside
 * the constraints may also get 400 or 404. Not judged: requests to no documented operation; 5xx (owned by
 * contract.no-server-errors). Chosen: a deliberate knock (intent `knock`, the opt-in ban probe) is exempt,
 * since a ban's status is not documented.
 */
export function judgeDocumentedStatus(v: View, scope: RequestScope, r: Recorder): void {
  const { ex, status } = v;
  if (status === null || ex.operation === null) return;
  if (status >= 500) return r.skip('contract.documented-status', ex, FIVE_XX);
  const documented: readonly number[] = OPERATIONS[ex.operation].statuses;
  if (documented.includes(status) || (scope.outside && (status === 400 || status === 404))) {
    return r.pass('contract.documented-status', ex);
  }
  if (ex.intent === 'knock')
    return r.skip(
      'contract.documented-status',
      ex,
      "a deliberate knock (intent knock, the opt-in ban probe): a ban's status is not documented",
    );
  const extra = scope.outside ? '; 400 or 404 for a request outside the constraints' : '';
  r.fail(
    'contract.documented-status',
    ex,
    `${status} is not documented for ${ex.operation} (documented: ${documented.join(', ')}${extra})`,
  );
}

/**
 * contract.json-content-type: every response with a body says application/json (parameters such as charset
 * allowed). Chosen: strictly that media type; `application/problem+json` fails, since the interface names
 * application/json for every body. 429 bodies are included ("every response").
 */
export function judgeJsonContentType(v: View, r: Recorder): void {
  const { ex } = v;
  if (ex.status === null || ex.body.kind === 'none') return;
  if (v.mediaType === JSON_MEDIA_TYPE) return r.pass('contract.json-content-type', ex);
  const found = headerValues(ex.headers, 'content-type');
  const what =
    found.length === 0
      ? 'no Content-Type'
      : found.length > 1
        ? `Content-Type repeated (${found.join(' | ')})`
        : `Content-Type ${found[0]}`;
  r.fail('contract.json-content-type', ex, `a body with ${what}; expected ${JSON_MEDIA_TYPE}`);
}

/**
 * contract.error-shape: every non-2xx body is an Error whose `status` is the HTTP status.
 * Chosen: 429 bodies are left to retry-after.error-body, because the interface leaves open whether a 429
 * carries an Error ("not shown"); judging them here would make that advisory question critical.
 */
export function judgeErrorShape(v: View, r: Recorder): ErrorBodyDefect | null {
  const { ex, status, body } = v;
  if (status === null || is2xx(status) || body.kind === 'none') return null;
  if (status === 429) {
    r.skip('contract.error-shape', ex, BODY_OF_429);
    return null;
  }
  if (body.kind === 'unusable') {
    r.skip('contract.error-shape', ex, body.reason);
    return null;
  }
  const defect = errorBodyDefect(body.value, status);
  if (defect === null) r.pass('contract.error-shape', ex);
  else r.fail('contract.error-shape', ex, defect.message);
  return defect;
}

/**
 * What keeps a body from being an Error for its HTTP status. `kind` names the defect independently of the status
 * and of the values found (the fields the schema rejects, or a `status` other than the HTTP status), so that the
 * same defect on bodies of different statuses is recognised as one.
 */
export interface ErrorBodyDefect {
  kind: string;
  message: string;
}

export function errorBodyDefect(value: unknown, status: number): ErrorBodyDefect | null {
  const res = ErrorBody.safeParse(value);
  if (!res.success) {
    const fields = [...new Set(res.error.issues.map((i) => i.path.join('.') || '(the body)'))].sort();
    return { kind: `fields ${fields.join(', ')}`, message: `not an Error body: ${issueSummary(res.error, value)}` };
  }
  if (res.data.status !== status)
    return {
      kind: 'status other than the HTTP status',
      message: `Error body says status ${res.data.status}, the HTTP status is ${status}`,
    };
  return null;
}

/** What keeps `value` from being an Error body for HTTP `status`, or null when it is one. */
export function errorBodyProblem(value: unknown, status: number): string | null {
  return errorBodyDefect(value, status)?.message ?? null;
}

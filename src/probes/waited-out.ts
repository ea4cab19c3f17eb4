/**
 * The evidence of a promise not kept (retry-after.honest, ratelimit.quota-restored): the 429 that promised (its
 * Retry-After, Reset and Date), when petload came back (on its clock and on the target's Date), and what the target
 * answered then, in one message that stands alone: a reader of the console, junit.xml or summary.md needs no other
 * file to see the promise and how it was kept.
 */
import { headerValue, type Exchange } from '../http/exchange.js';
import { dateOf } from '../http/parsed.js';
import { RETRY_AFTER_MARGIN_MS } from '../http/server-time.js';
import { refusedAs } from './reasons.js';

/** A header's value as the target sent it (bounded: a target's text can be absurd), or `none`. */
function header(ex: Exchange, name: string): string {
  const v = headerValue(ex.headers, name);
  if (v === undefined) return 'none';
  return v.length > 60 ? `${v.slice(0, 60)}…` : v;
}

/** Retry-After, X-RateLimit-Reset and Date of an answer. */
const promiseHeaders = (ex: Exchange): string =>
  `Retry-After: ${header(ex, 'retry-after')}, X-RateLimit-Reset: ${header(ex, 'x-ratelimit-reset')}, Date: ${header(ex, 'date')}`;

const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;

/** `; 56 s by the target's Date`: the same wait on the target's own timeline, when both answers carry a Date. */
function byDate(promised: Exchange, again: Exchange): string {
  const [d0, d1] = [dateOf(promised), dateOf(again)];
  return d0 === null || d1 === null ? '' : `; ${Math.round((d1 - d0) / 1000)} s by the target's Date`;
}

/**
 * `refused again (429) after waiting Retry-After (56 s) + 250 ms` (the wait in words: waitedRetryAfter); the 429 that promised: Retry-After: 56, …;
 * petload came back 56.3 s after it (at …Z, petload's clock; 56 s by the target's Date); the answer then: 429, …`.
 * Times on the run clock, the target's when its clock is scaled.
 */
export function waitedOutMessage(promised: Exchange, again: Exchange, wait: string): string {
  return afterWait(`refused again (${refusedAs(again)}) ${wait}`, promised, again);
}

/** `after waiting Retry-After (56 s) + 250 ms`: retry-after-honest's wait, in words. */
export const waitedRetryAfter = (waitMs: number): string =>
  `after waiting Retry-After (${waitMs / 1000} s) + ${RETRY_AFTER_MARGIN_MS} ms`;

/** `lead`, then the 429 that promised, when petload came back and the answer then (any wait-then-request probe). */
export function afterWait(lead: string, promised: Exchange, again: Exchange): string {
  const after = again.timing.sent - promised.timing.done;
  const at = new Date(promised.localTime + after).toISOString();
  return (
    `${lead}; the 429 that promised: ${promiseHeaders(promised)}; ` +
    `petload came back ${seconds(after)} after it (at ${at}, petload's clock${byDate(promised, again)}); ` +
    `the answer then: ${refusedAs(again)}, ${promiseHeaders(again)}`
  );
}

/**
 * backoff.respects-retry-after: petload's own discipline. Once a 429 with a usable Retry-After has been
 * received on a key (at its timing.done), no request on that key may be sent before the wait is over.
 * Per key, only the last few holds are kept: memory does not grow with the run.
 */
import { earliestLocal } from '../../http/server-time.js';
import type { RetryAfterWait } from './retry-after.js';
import type { Recorder, View } from './view.js';

interface Hold {
  /** Monotonic run-clock ms when the 429 was received. */
  from: number;
  until: number;
  raw: string;
}

/**
 * The longest wait petload gives a Retry-After that is no plausible delay (beyond what its window justifies) when no
 * usable Reset says more, run-clock ms: the backoff's default cap, for the probes and the load alike.
 */
export const IMPLAUSIBLE_WAIT_MS = 30_000;

/** Holds kept per key; an older one can only catch a request that was in flight for several 429s. */
const MAX_HOLDS = 4;

/**
 * The wait a 429 imposes on the client, in run-clock ms. Chosen where the catalogue is silent:
 * - it is capped by what the target itself says elsewhere: the time to Reset when Reset is a usable
 *   timestamp (and the refusing window's), else the window length. The ground rules bound every wait by
 *   the window, so a Retry-After in milliseconds does not oblige the client to wait 1000 times too long
 *   (retry-after.plausible fails that target instead);
 * - instants (an HTTP-date, Reset) are on the server's timeline: read against the answer's own Date, whatever the
 *   local clock says (a server minutes behind asks for the wait it names, not one minutes shorter), at their earliest
 *   local reading (Date floors to the second: a second and the answer's transit of tolerance; http/server-time.ts).
 */
export function obligationMs(v: View, wait: RetryAfterWait): number {
  const { ex } = v;
  const asked = wait.untilEpochMs === null ? wait.waitS * 1000 : earliestLocal(ex, wait.untilEpochMs) - ex.localTime;
  const implausible = wait.waitS > wait.boundS;
  // An implausible value with no usable Reset (an epoch, a date in year 9999) obliges no more than the backoff's cap:
  // retry-after.plausible fails the target, not the client's wait.
  const bound = implausible ? IMPLAUSIBLE_WAIT_MS : wait.boundS * 1000;
  const cap = wait.resetEpochMs === null ? bound : earliestLocal(ex, wait.resetEpochMs) - ex.localTime;
  return Math.min(asked, cap);
}

/**
 * `clockScale`: the run clock runs that many times faster than real time; the slack of 2 real ms (timer
 * granularity) is 2 × clockScale clock ms. A deliberate knock (a request whose intent is `knock`: the opt-in ban
 * probe's) is exempt, whatever its tag or timing; every other request inside a running Retry-After fails.
 */
export function createBackoffJudge(clockScale: number): (v: View, wait: RetryAfterWait | null, r: Recorder) => void {
  const slackMs = 2 * clockScale;
  const holdsByKey = new Map<string, Hold[]>();
  return (v, wait, r) => {
    const { ex } = v;
    if (ex.auth !== 'valid' || ex.keyLabel === null) return;
    let holds = holdsByKey.get(ex.keyLabel);
    if (ex.intent === 'knock') {
      r.skip('backoff.respects-retry-after', ex, 'a deliberate knock (intent knock, the opt-in ban probe) is exempt');
    } else {
      const sent = ex.timing.sent;
      const hit = holds?.find((h) => sent > h.from && sent < h.until - slackMs);
      if (hit === undefined) r.pass('backoff.respects-retry-after', ex);
      else {
        r.fail(
          'backoff.respects-retry-after',
          ex,
          `sent ${Math.round(sent - hit.from)} ms after a 429 whose Retry-After ${JSON.stringify(hit.raw)} held the key for ${Math.round(hit.until - hit.from)} ms (run-clock ms)`,
        );
      }
    }
    if (wait === null) return;
    const ms = obligationMs(v, wait);
    if (!(ms > 0)) return;
    if (holds === undefined) holdsByKey.set(ex.keyLabel, (holds = []));
    holds.push({ from: ex.timing.done, until: ex.timing.done + ms, raw: wait.raw.slice(0, 40) });
    if (holds.length > MAX_HOLDS) holds.shift();
  };
}

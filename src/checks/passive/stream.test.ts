import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Ledger } from '../ledger.js';
import {
  buildExchange,
  countsOf,
  FIXED_NOW,
  httpDate,
  MINUTE_RESET,
  outcomeOf,
  rateLimitHeaders,
  TEST_PLANS,
  type ExchangeParts,
} from '../../testing/exchange-builder.js';
import { readRateLimit } from './ratelimit.js';
import { resolveAtEnd } from '../echoes.js';
import { deferralsOf, reasonOf } from '../deferrals.js';
import { lineOf } from '../skip-reason.js';
import { createStreamJudge, EXHAUSTED_REASON, SLID_AFTER_EXHAUSTED_REASON } from './stream.js';
import { createRecorder, createViewer } from './view.js';
import { type LogAnswer, movingWindow, pairedTimes } from '../../testing/moving-window.js';

const DEC = 'ratelimit.remaining-decrements';
const WIN = 'ratelimit.window-consistency';

interface Step {
  status?: number;
  limit?: number;
  remaining: number;
  reset?: number;
  /** Seconds after FIXED_NOW (server Date and local clock). */
  at?: number;
  overlapped?: boolean;
  /** Run-clock ms; defaults keep steps sequential, 100 ms apart. */
  sent?: number;
  done?: number;
}

/** Feeds one key's exchanges through the rate-limit reading and the stream checks, as the observer does. */
function session() {
  const ledger = new Ledger();
  const r = createRecorder(ledger);
  const view = createViewer(TEST_PLANS);
  const judge = createStreamJudge();
  let t = 0;
  const feed = (parts: ExchangeParts) => {
    const v = view(buildExchange(parts));
    judge(v, v.status === null ? null : readRateLimit(v, r), r);
  };
  // The end of the run, once: what the judge held is handed over and the deferrals are resolved.
  let ended = false;
  const end = () => {
    if (ended) return;
    ended = true;
    judge.finish(ledger);
    resolveAtEnd(ledger, { countersOf: judge.counters.countersOf, limiterOf: judge.limiterOf });
  };
  return {
    ledger,
    feed,
    /** The end of the run: held judgements are recorded. */
    finish: () => end(),
    /** The ledger once what is held to the end of the run (the headers' movement, rises under concurrency) is recorded. */
    settled: () => {
      end();
      return ledger;
    },
    see(...steps: Step[]) {
      for (const s of steps) {
        t += 100;
        const now = FIXED_NOW + (s.at ?? 0) * 1000;
        feed({
          status: s.status ?? 200,
          headers: { ...rateLimitHeaders(s.limit ?? 60, s.remaining, s.reset ?? MINUTE_RESET), date: httpDate(now) },
          localTime: now,
          overlapped: s.overlapped ?? false,
          timing: { sent: s.sent ?? t, done: s.done ?? t + 50 },
        });
      }
    },
  };
}
const messages = (l: Ledger, id: Parameters<typeof outcomeOf>[1]) =>
  outcomeOf(l, id)?.evidence.map((e) => e.message) ?? [];

describe('ratelimit.remaining-decrements', () => {
  it('passes a run of 2xx going down by one', () => {
    const s = session();
    s.see({ remaining: 59 }, { remaining: 58 }, { remaining: 57 });
    expect(countsOf(s.settled(), DEC)).toEqual({ passed: 3, failed: 0, skipped: 0 });
  });

  it('fails a 2xx that leaves Remaining at Limit (the request was not counted)', () => {
    const s = session();
    s.see({ remaining: 60 });
    expect(messages(s.settled(), DEC)).toEqual([
      'a 200 shows Remaining 60 of Limit 60: the request it answers was not counted (at most 59 can remain)',
    ]);
  });

  it('fails a 2xx that does not go down by exactly one', () => {
    const s = session();
    s.see({ remaining: 59 }, { remaining: 59 }, { remaining: 57 });
    // Both held to the end of the run: the rise (a refilling limiter's rise is not a defect), then the fall (on a
    // target whose keys share a counter, others' requests may have been counted; see below); neither is, here.
    expect(messages(s.settled(), DEC)).toEqual([
      `Remaining 59 on a 200 after (Limit 60, Remaining 59, Reset ${MINUTE_RESET}, status 200) in the same window; expected 58`,
      `Remaining 57 on a 200 after (Limit 60, Remaining 59, Reset ${MINUTE_RESET}, status 200) in the same window; expected 58`,
    ]);
  });

  it('lets a non-2xx count or not, but no more than one', () => {
    const s = session();
    s.see(
      { remaining: 59 },
      { status: 400, remaining: 59 },
      { status: 404, remaining: 58 },
      { status: 401, remaining: 56 },
    );
    expect(countsOf(s.settled(), DEC)).toEqual({ passed: 3, failed: 1, skipped: 0 });
    expect(messages(s.settled(), DEC)[0]).toMatch(/^Remaining 56 on a 401 .* expected 58 or 57$/);
  });

  it('accepts a 2xx that shows the Remaining of the error before it (a refunded error)', () => {
    const s = session();
    s.see({ remaining: 58 }, { status: 400, remaining: 57 }, { remaining: 57 });
    expect(countsOf(s.settled(), DEC)).toEqual({ passed: 3, failed: 0, skipped: 0 });
  });

  it('skips a 2xx once the window showed Remaining 0, naming ratelimit.enforced (an admission past the limit)', () => {
    const s = session();
    s.see({ remaining: 1 }, { remaining: 0 }, { remaining: 0 }, { status: 429, remaining: 0 }, { remaining: 0 });
    expect(countsOf(s.settled(), DEC)).toEqual({ passed: 3, failed: 0, skipped: 2 });
    expect(outcomeOf(s.settled(), DEC)?.skipReasons).toEqual([
      'a 2xx after the window showed Remaining 0: an admission past the limit (see ratelimit.enforced)',
    ]);
  });

  it('skips a shortfall that requests of other keys completed in between can explain, naming ratelimit.key-isolation', () => {
    const s = session();
    s.see({ remaining: 59 });
    s.feed({
      keyLabel: 'pro#1 (…abcd)',
      plan: 'pro',
      headers: rateLimitHeaders(300, 299, MINUTE_RESET),
      timing: { sent: 150, done: 160 },
    });
    s.feed({
      keyLabel: 'pro#1 (…abcd)',
      plan: 'pro',
      headers: rateLimitHeaders(300, 298, MINUTE_RESET),
      timing: { sent: 170, done: 180 },
    });
    s.see({ remaining: 56 });
    expect(countsOf(s.settled(), DEC)).toEqual({ passed: 1, failed: 0, skipped: 1 });
    expect(outcomeOf(s.settled(), DEC)?.skipReasons).toEqual([
      expect.stringMatching(/while other keys sent: .* \(see ratelimit\.key-isolation\)$/),
    ]);
    // A shortfall larger than the requests in between is this key's own: it fails (the next test).
  });

  it('a shortfall the requests answered in between cannot explain: failed, unless the keys share a counter', () => {
    // Across a long link, other keys' requests counted before this key's may be answered after it: on a target
    // whose keys share a counter (key-isolation failed in the run) the fall is that defect's, not this check's.
    for (const shared of [false, true]) {
      const s = session();
      s.see({ remaining: 59 }, { remaining: 55 });
      if (shared) s.ledger.fail('ratelimit.key-isolation', 'free', 'after exhausting key A, key B is refused (429)');
      s.finish();
      if (shared) {
        expect(countsOf(s.ledger, DEC)).toEqual({ passed: 1, failed: 0, skipped: 1 });
        expect(outcomeOf(s.ledger, DEC)?.skipReasons).toEqual([
          expect.stringMatching(/keys share a counter: .*ratelimit\.key-isolation's$/),
        ]);
      } else {
        expect(messages(s.ledger, DEC)).toEqual([expect.stringMatching(/^Remaining 55 on a 200 .* expected 58$/)]);
      }
    }
  });

  it('skips a shortfall that requests without a valid key can explain, naming auth.no-quota-drain', () => {
    const s = session();
    s.see({ remaining: 59 });
    for (let i = 0; i < 5; i++)
      s.feed({
        auth: 'invalid',
        keyLabel: 'unknown key',
        plan: null,
        status: 401,
        timing: { sent: 150 + i, done: 151 + i },
      });
    s.see({ remaining: 53 });
    expect(countsOf(s.ledger, DEC)).toEqual({ passed: 1, failed: 0, skipped: 1 });
    expect(outcomeOf(s.ledger, DEC)?.skipReasons).toEqual([
      expect.stringMatching(/without a valid key were sent: .* \(see auth\.no-quota-drain\)$/),
    ]);
    // Remaining that is too high is never explained by other requests.
    s.feed({ auth: 'invalid', keyLabel: 'unknown key', plan: null, status: 401, timing: { sent: 400, done: 401 } });
    s.see({ remaining: 53 });
    expect(messages(s.settled(), DEC)).toEqual([expect.stringMatching(/^Remaining 53 on a 200 .* expected 52$/)]);
  });

  it('compares only within one window (same Limit, Reset within 1 s)', () => {
    const s = session();
    s.see(
      { remaining: 50 },
      { remaining: 49, reset: MINUTE_RESET + 1 },
      { remaining: 59, reset: MINUTE_RESET + 60, at: 31 },
      { remaining: 998, limit: 1000, reset: MINUTE_RESET + 3600 },
    );
    expect(countsOf(s.settled(), DEC)).toEqual({ passed: 4, failed: 0, skipped: 0 });
  });

  it('skips a pair when either overlapped another request on the key', () => {
    const s = session();
    s.see({ remaining: 59 }, { status: 429, remaining: 40, overlapped: true });
    expect(outcomeOf(s.settled(), DEC)?.skipReasons).toEqual([
      'overlapped another request on the same key: their order at the server is unknown',
    ]);
    expect(countsOf(s.settled(), DEC).failed).toBe(0);
  });

  it('skips unusable triples naming the check that judged them, and restarts the chain after them', () => {
    const s = session();
    s.see({ remaining: 59 });
    s.feed({ headers: { 'x-ratelimit-remaining': 'many' }, timing: { sent: 1000, done: 1050 } });
    s.see({ remaining: 56 });
    s.feed({
      status: null,
      headers: {},
      body: { kind: 'none' },
      error: { kind: 'reset', message: 'socket hang up' },
      timing: { sent: 2000, done: 2001 },
    });
    s.see({ remaining: 50 });
    expect(countsOf(s.settled(), DEC)).toEqual({ passed: 3, failed: 0, skipped: 2 });
    expect(outcomeOf(s.settled(), DEC)?.skipReasons).toEqual([
      'an X-RateLimit-* value is not usable (see ratelimit.headers-syntax)',
      'no response (see contract.transport)',
    ]);
  });

  it('skips a Reset that is not a timestamp, naming ratelimit.reset-is-timestamp', () => {
    const s = session();
    s.see({ remaining: 59, reset: 30 }, { remaining: 59, reset: 30 });
    expect(countsOf(s.settled(), DEC)).toEqual({ passed: 0, failed: 0, skipped: 2 });
    expect(outcomeOf(s.settled(), DEC)?.skipReasons).toEqual([
      'Reset is not a usable timestamp (see ratelimit.reset-is-timestamp)',
    ]);
  });

  it('judges only valid keys', () => {
    const s = session();
    s.feed({ auth: 'none', keyLabel: null, plan: null, status: 401 });
    s.feed({
      auth: 'invalid',
      keyLabel: 'unknown key',
      plan: null,
      status: 200,
      headers: rateLimitHeaders(60, 60, MINUTE_RESET),
    });
    expect(countsOf(s.settled(), DEC, null)).toEqual({ passed: 0, failed: 0, skipped: 0 });
    expect(countsOf(s.settled(), WIN, null)).toEqual({ passed: 0, failed: 0, skipped: 0 });
  });
});

describe('ratelimit.window-consistency', () => {
  it('passes a window that only goes down, then a fresh one after Reset', () => {
    const s = session();
    s.see(
      { remaining: 59 },
      { remaining: 58 },
      { status: 429, remaining: 0 },
      { remaining: 59, reset: MINUTE_RESET + 60, at: 30 },
    );
    expect(countsOf(s.settled(), WIN)).toEqual({ passed: 3, failed: 0, skipped: 0 });
  });

  it('fails Remaining rising within one window', () => {
    const s = session();
    s.see({ remaining: 40 }, { remaining: 41 });
    expect(messages(s.settled(), WIN)).toEqual([
      `Remaining rose from 40 to 41 within one window (Limit 60, Reset ${MINUTE_RESET}), on a request sent after the other completed`,
    ]);
  });

  it('sees a rise across overlapping requests, against any exchange completed before the send', () => {
    const s = session();
    s.see(
      { remaining: 40, sent: 0, done: 100 },
      { remaining: 38, sent: 150, done: 300, overlapped: true },
      { remaining: 39, sent: 200, done: 350, overlapped: true },
    );
    expect(countsOf(s.ledger, WIN)).toEqual({ passed: 2, failed: 0, skipped: 0 });
    s.see({ remaining: 39, sent: 320, done: 400, overlapped: true });
    s.finish();
    expect(messages(s.settled(), WIN)).toEqual([expect.stringMatching(/^Remaining rose from 38 to 39/)]);
  });

  it('remembers the lowest Remaining of a window beyond its recent exchanges', () => {
    const s = session();
    for (let i = 0; i < 20; i++) s.see({ remaining: 59 - i });
    s.see({ remaining: 45, overlapped: true });
    s.finish();
    expect(messages(s.settled(), WIN)).toEqual([expect.stringMatching(/^Remaining rose from 40 to 45/)]);
  });

  it('fails a rise in sequential traffic at once', () => {
    const s = session();
    s.see({ remaining: 40 }, { remaining: 42 });
    expect(messages(s.settled(), WIN)).toEqual([expect.stringMatching(/^Remaining rose from 40 to 42/)]);
  });

  it('skips a rise among concurrent requests, naming ratelimit.no-over-admission, when that check found the counter losing requests', () => {
    const s = session();
    s.see({ remaining: 40, sent: 0, done: 100, overlapped: true }, { remaining: 44, sent: 150, done: 200 });
    expect(countsOf(s.ledger, WIN)).toEqual({ passed: 0, failed: 0, skipped: 0 });
    s.ledger.fail('ratelimit.no-over-admission', 'pro', '305 of 305 simultaneous requests accepted; the limit is 300');
    s.finish();
    expect(countsOf(s.settled(), WIN)).toEqual({ passed: 0, failed: 0, skipped: 1 });
    expect(outcomeOf(s.settled(), WIN)?.skipReasons).toEqual([
      "Remaining rose where requests on the key were in flight together, and the counter loses concurrent requests: that defect is ratelimit.no-over-admission's",
    ]);
  });

  it('fails a Reset that moves before the previous window was due to end', () => {
    const s = session();
    s.see({ remaining: 59 }, { remaining: 59, reset: MINUTE_RESET + 30, at: 10 });
    expect(messages(s.settled(), WIN)).toEqual([
      `Reset moved from ${MINUTE_RESET} to ${MINUTE_RESET + 30} (Limit 60) at Date ${MINUTE_RESET - 20}, before the earlier window was due to end`,
    ]);
  });

  it('remembers the window of the four Limits updated last, however often the newest one repeats', () => {
    const moved = `Reset moved from ${MINUTE_RESET} to ${MINUTE_RESET + 30} (Limit 60) at Date ${MINUTE_RESET - 20}, before the earlier window was due to end`;
    const others = (...limits: number[]) => limits.map((limit) => ({ limit, remaining: 5 }));
    // Limit 60 updated again (in place, several times) after 61..63: 61 is the one forgotten when 64 comes.
    const kept = session();
    kept.see(
      { remaining: 59 },
      ...others(61, 62, 63),
      { remaining: 58 },
      { remaining: 57 },
      { remaining: 56 },
      ...others(64),
    );
    kept.see({ remaining: 59, reset: MINUTE_RESET + 30, at: 10 });
    expect(messages(kept.settled(), WIN)).toEqual([moved]);
    // Limit 60 repeated only before the others: the least recently updated, it is forgotten.
    const dropped = session();
    dropped.see({ remaining: 59 }, { remaining: 58 }, ...others(61, 62, 63, 64));
    dropped.see({ remaining: 59, reset: MINUTE_RESET + 30, at: 10 });
    expect(messages(dropped.settled(), WIN)).toEqual([]);
  });

  it('fails a day Limit whose Reset moves sooner than a day, but not by a minute', () => {
    const s = session();
    s.see({ limit: 1000, remaining: 900 }, { limit: 1000, remaining: 899, reset: MINUTE_RESET + 3600, at: 30 });
    expect(messages(s.settled(), WIN)).toEqual([
      `Limit 1000 names a 86400 s window, but consecutive Resets are 3600 s apart (${MINUTE_RESET} → ${MINUTE_RESET + 3600})`,
    ]);
    expect(countsOf(s.settled(), 'ratelimit.limit-matches-plan').failed).toBe(0);
  });

  it('gives a day figure announced on windows of a minute to ratelimit.limit-matches-plan, and skips naming it', () => {
    const s = session();
    s.see({ limit: 1000, remaining: 900 }, { limit: 1000, remaining: 999, reset: MINUTE_RESET + 60, at: 30 });
    expect(countsOf(s.settled(), WIN)).toEqual({ passed: 0, failed: 0, skipped: 1 });
    expect(outcomeOf(s.settled(), WIN)?.skipReasons).toEqual([
      "the Limit is the plan's per-day figure on windows of a minute: that defect is ratelimit.limit-matches-plan's",
    ]);
    expect(messages(s.settled(), 'ratelimit.limit-matches-plan')).toEqual([
      `Limit 1000 is the free plan's per-day figure, but it is announced on windows of a minute (consecutive Resets ${MINUTE_RESET} → ${MINUTE_RESET + 60}); the per-minute figure is 60`,
    ]);
    // The same after an idle gap: the next window opened 14 s after the first ended.
    const idle = session();
    idle.see({ limit: 1000, remaining: 900 }, { limit: 1000, remaining: 999, reset: MINUTE_RESET + 74, at: 44 });
    expect(countsOf(idle.settled(), WIN)).toEqual({ passed: 0, failed: 0, skipped: 1 });
    expect(countsOf(idle.ledger, 'ratelimit.limit-matches-plan').failed).toBe(1);
  });

  it('does not order a request sent in the same instant another completed (either may have reached the server first)', () => {
    // Found by the property test below: the server handled the later one first, at the instant both met.
    const s = session();
    s.see({ remaining: 58, sent: 1000, done: 1006 }, { remaining: 59, sent: 1006, done: 1007 });
    expect(countsOf(s.settled(), WIN)).toEqual({ passed: 0, failed: 0, skipped: 0 });
    expect(countsOf(s.settled(), DEC)).toMatchObject({ failed: 0 });
    // A millisecond later, the order is known and a rise fails.
    const later = session();
    later.see({ remaining: 58, sent: 1000, done: 1006 }, { remaining: 59, sent: 1007, done: 1008 });
    expect(messages(later.settled(), WIN)).toEqual([expect.stringMatching(/^Remaining rose from 58 to 59/)]);
  });

  it('does not judge an older window that completes after a newer one', () => {
    const s = session();
    s.see({ remaining: 59, reset: MINUTE_RESET + 60, at: 30, sent: 1000, done: 1100, overlapped: true });
    s.see({ remaining: 3, reset: MINUTE_RESET, at: 29, sent: 900, done: 1200, overlapped: true });
    expect(countsOf(s.settled(), WIN)).toEqual({ passed: 0, failed: 0, skipped: 0 });
  });
});

describe('a correct server never fails the stream checks', () => {
  /** A request as scheduled by a client: send time, duration, and where in between the server handles it. */
  const request = fc.record({
    sent: fc.integer({ min: 0, max: 150_000 }),
    duration: fc.integer({ min: 1, max: 3000 }),
    handledAt: fc.double({ min: 0, max: 1, noNaN: true }),
    bad: fc.boolean(),
  });

  it('an atomic fixed-window limiter, under any overlap of requests on one key', () => {
    fc.assert(
      fc.property(fc.array(request, { minLength: 1, maxLength: 90 }), fc.boolean(), (reqs, countErrors) => {
        const origin = Date.UTC(2030, 0, 15, 12, 0, 0);
        const timed = reqs.map((q) => ({ ...q, done: q.sent + q.duration, at: q.sent + q.handledAt * q.duration }));
        // The server handles requests in `at` order: 60 per aligned minute, 429 beyond, errors counted or not.
        const counts = new Map<number, number>();
        const answers = new Map<(typeof timed)[number], { status: number; remaining: number; reset: number }>();
        for (const q of [...timed].sort((a, b) => a.at - b.at)) {
          const windowStart = Math.floor(q.at / 60_000) * 60_000;
          const used = counts.get(windowStart) ?? 0;
          const reset = (origin + windowStart + 60_000) / 1000;
          if (used >= 60) answers.set(q, { status: 429, remaining: 0, reset });
          else {
            const counted = !q.bad || countErrors;
            if (counted) counts.set(windowStart, used + 1);
            answers.set(q, { status: q.bad ? 400 : 200, remaining: 60 - used - (counted ? 1 : 0), reset });
          }
        }
        const s = session();
        for (const q of [...timed].sort((a, b) => a.done - b.done)) {
          const a = answers.get(q)!;
          const overlapped = timed.some((o) => o !== q && o.sent <= q.done && q.sent <= o.done);
          s.feed({
            status: a.status,
            headers: {
              ...rateLimitHeaders(60, a.remaining, a.reset),
              date: httpDate(Math.floor((origin + q.at) / 1000) * 1000),
            },
            localTime: origin + q.done,
            overlapped,
            timing: { sent: q.sent, done: q.done },
          });
        }
        for (const id of [DEC, WIN, 'ratelimit.reset-is-timestamp', 'ratelimit.headers-syntax'] as const) {
          expect(outcomeOf(s.settled(), id)?.evidence ?? []).toEqual([]);
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe("ratelimit.remaining-decrements on a sliding log (the key's requests sliding out)", () => {
  // A sliding log as Python's `limits` keeps one: Reset = its oldest hit's end in whole seconds (movingWindow).
  const T0_S = Math.floor(FIXED_NOW / 1000);
  const slidOut = deferralsOf(DEC, 'slid-out')[0]!;
  /** The answers, each sent after the one before completed (20 ms on the wire), on the run clock of their time. */
  const steps = (answers: readonly LogAnswer[]): Step[] =>
    answers.map((a) => ({ ...a, at: a.at, sent: a.at * 1000, done: a.at * 1000 + 20 }));

  it("passes Remaining that stays when one of the key's requests of a minute before slid out (the false alarm)", () => {
    const s = session();
    // 0.3 s and 30 s remain in the log at 60.2 s, 0 s slid out: Remaining 57 again, Reset (the oldest's end) the same.
    const answers = movingWindow([0, 0.3, 30, 60.2], 60, T0_S);
    expect(answers.map((a) => [a.remaining, a.reset - T0_S])).toEqual([
      [59, 60],
      [58, 60],
      [57, 60],
      [57, 60],
    ]);
    s.see(...steps(answers));
    const l = s.settled();
    expect(countsOf(l, DEC)).toEqual({ passed: 3, failed: 0, skipped: 1 });
    expect(outcomeOf(l, DEC)?.skipReasons).toEqual([reasonOf(slidOut)]);
    expect(outcomeOf(l, 'ratelimit.algorithm')?.info.shape).toBe('sliding window (a log of the trailing minute)');
  });

  it('passes traffic spread over more than a minute, its requests sliding out one by one, and names the log', () => {
    const s = session();
    // Pairs 0.2 s apart every 2.5 s for 100 s: 48 a minute, never refused; from 60 s on each hit meets one sliding out.
    s.see(...steps(movingWindow(pairedTimes(2.5, 0.2, 100), 60, T0_S)));
    const l = s.settled();
    expect(countsOf(l, DEC).failed).toBe(0);
    expect(countsOf(l, WIN).failed).toBe(0);
    expect(outcomeOf(l, DEC)?.skipReasons).toContain(reasonOf(slidOut));
    const algorithm = outcomeOf(l, 'ratelimit.algorithm')?.info ?? {};
    expect(algorithm.shape).toBe('sliding window (a log of the trailing minute)');
    expect(algorithm.evidence).toMatch(/, \d+ with Remaining up by exactly the key's own requests that slid out/);
  });

  it('passes a log held at its limit, which lets one request in as each one of a minute ago slides out', () => {
    const s = session();
    const times = Array.from({ length: 300 }, (_, i) => i / 2);
    s.see(...steps(movingWindow(times, 60, T0_S)));
    const l = s.settled();
    expect(countsOf(l, DEC).failed).toBe(0);
    expect(countsOf(l, WIN).failed).toBe(0);
    expect(outcomeOf(l, 'ratelimit.algorithm')?.info.shape).toBe('sliding window (a log of the trailing minute)');
  });

  it("names the key's requests sliding out, not an admission past the limit, for a 2xx after Remaining 0 on a log", () => {
    // 61 requests in the first half-minute, 0.4 s apart: the 61st refused with Remaining 0; then, a minute after the
    // first, as many at the same pace: each let in as one of a minute before slides out, answered with Remaining 0.
    const times = [
      ...Array.from({ length: 61 }, (_, i) => i * 0.4),
      ...Array.from({ length: 20 }, (_, i) => 60.05 + i * 0.4),
    ];
    const answers = movingWindow(times, 60, T0_S);
    expect(answers.slice(59, 63).map((a) => [a.status, a.remaining])).toEqual([
      [200, 0],
      [429, 0],
      [200, 0],
      [200, 0],
    ]);
    const s = session();
    s.see(...steps(answers));
    const l = s.settled();
    expect(countsOf(l, DEC).failed).toBe(0);
    const reasons = outcomeOf(l, DEC)?.skipReasons ?? [];
    expect(reasons).toContain(lineOf(SLID_AFTER_EXHAUSTED_REASON));
    expect(reasons).not.toContain(lineOf(EXHAUSTED_REASON));
    // A fixed window's 2xx after Remaining 0, with nothing of the key's sliding out, is still the admission it is.
    const fixed = session();
    fixed.see(
      { status: 200, remaining: 0, reset: T0_S + 60, at: 0 },
      { status: 200, remaining: 0, reset: T0_S + 60, at: 1 },
    );
    const fl = fixed.settled();
    expect(outcomeOf(fl, DEC)?.skipReasons).toContain(lineOf(EXHAUSTED_REASON));
    expect(outcomeOf(fl, DEC)?.skipReasons).not.toContain(lineOf(SLID_AFTER_EXHAUSTED_REASON));
  });

  it("fails a skipped decrement where none of the key's requests slid out, on a log read as one", () => {
    const s = session();
    // 0-20 s, nothing from 20 to 40 s, then 40-100 s: at 90.2 s nothing slides out (30 s was quiet), and the server
    // does not count that hit.
    const times = [...pairedTimes(2.5, 0.2, 20), ...pairedTimes(2.5, 0.2, 100, 40)];
    const skipped = times.findIndex((t) => Math.abs(t - 90.2) < 1e-9);
    const answers = movingWindow(times, 60, T0_S, new Set([skipped]));
    s.see(...steps(answers));
    const l = s.settled();
    const a = answers[skipped]!;
    expect(messages(l, DEC)).toEqual([
      `Remaining ${a.remaining} on a 200 after (Limit 60, Remaining ${a.remaining}, Reset ${a.reset}, status 200) in the same window; expected ${a.remaining - 1}`,
    ]);
    expect(outcomeOf(l, 'ratelimit.algorithm')?.info.shape).toBe('sliding window (a log of the trailing minute)');
  });

  it('fails Remaining that stays on a fixed window, even where a request of the window before went a minute ago', () => {
    const s = session();
    // A fixed window from the key's first request: 0-60 s, then 60-120 s; the hit at 70.2 s is not counted.
    const times = pairedTimes(2.5, 0.2, 100);
    let counted = 0;
    const fixed: LogAnswer[] = times.map((at) => {
      const second = at >= 60;
      if (Math.abs(at - 70.2) > 1e-9) counted = second && at < 60.1 ? 1 : counted + 1;
      return { at, status: 200, remaining: 60 - counted, reset: T0_S + (second ? 120 : 60) };
    });
    s.see(...steps(fixed));
    const l = s.settled();
    expect(outcomeOf(l, 'ratelimit.algorithm')?.info.shape).toBe("fixed window from a key's first request");
    expect(messages(l, DEC)).toEqual([
      `Remaining 51 on a 200 after (Limit 60, Remaining 51, Reset ${T0_S + 120}, status 200) in the same window; expected 50; between 0 and 2 of the key's own requests slid out of the trailing minute in between`,
    ]);
  });
});

describe('ratelimit.algorithm from the stream', () => {
  it('reads the limiter from the IETF fields when the target sends only them', () => {
    const s = session();
    const NO_X = { 'x-ratelimit-limit': undefined, 'x-ratelimit-remaining': undefined, 'x-ratelimit-reset': undefined };
    // Reset held 30 s ahead of the window's start for 12 s: a fixed window, told by the draft fields alone.
    for (let i = 0; i <= 12; i++) {
      const now = FIXED_NOW + i * 1000;
      s.feed({
        headers: {
          ...NO_X,
          date: httpDate(now),
          'ratelimit-policy': '"m";q=60;w=60',
          ratelimit: `"m";r=${59 - i};t=${30 - i}`,
        },
        localTime: now,
        timing: { sent: i * 1000, done: i * 1000 + 5 },
      });
    }
    expect(outcomeOf(s.settled(), 'ratelimit.algorithm')?.info.shape).toBe("fixed window from a key's first request");
  });
});

describe('a Reset that moves forward with the requests, from few answers', () => {
  const untold = deferralsOf(WIN, 'forward-reset').find((d) => d.when === 'shape-unknown')!;
  const R = Math.floor(FIXED_NOW / 1000);
  /** A key's windows as a sliding log would tell them from requests within a second, then a Reset moved forward. */
  const fewAnswers = (held: number[]): Step[] => [
    ...held.map((at, i) => ({ at, remaining: 59 - i, reset: R + 60 })),
    // Drained (or ended) and started again a window later.
    { at: 61, remaining: 59, reset: R + 121 },
    { at: 61.5, remaining: 58, reset: R + 121 },
    // Two seconds on, on a request that overlapped another (not read for the limiter's shape): Reset moved with it.
    { at: 63, remaining: 57, reset: R + 123, overlapped: true },
  ];

  it('is not a failure where the answers cannot tell a fixed window from a sliding log, and the shape is unknown', () => {
    const s = session();
    s.see(...fewAnswers([0, 0.4, 0.8]));
    const l = s.settled();
    expect(countsOf(l, WIN).failed).toBe(0);
    expect(outcomeOf(l, WIN)?.skipReasons).toContain(reasonOf(untold));
    expect(outcomeOf(l, 'ratelimit.algorithm')?.info.shape).toBe('unknown');
  });

  it('fails where a Reset held while the requests went on (a fixed window, whose end does not move)', () => {
    const s = session();
    s.see(...fewAnswers([0, 4, 8]));
    const l = s.settled();
    expect(outcomeOf(l, 'ratelimit.algorithm')?.info.shape).toBe("fixed window from a key's first request");
    expect(messages(l, WIN)).toEqual([expect.stringMatching(/^Reset moved from \d+ to \d+ \(Limit 60\)/)]);
  });
});

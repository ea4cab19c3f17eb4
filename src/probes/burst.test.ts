/**
 * The burst probe alone, each of its decisions taken by a scripted loopback target (src/testing/probe-harness.ts):
 * held, over-admitted (with each way of showing the target enforces at all), a burst over two windows (with a refusal:
 * judged; without: taken again, three times at most), a Reset that moves with the requests (the refill explains
 * the excess: held; not: skipped), a burst that lasted a window, an announced Limit, a declared tolerance.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import {
  type Answer,
  errorBody,
  figuresKey,
  fixedWindow,
  limitHeaders,
  PET,
  type Received,
  runProbeAlone,
  type Script,
} from '../testing/probe-harness.js';

const ID = 'ratelimit.no-over-admission' as const;
const key = figuresKey('free', 1, { perMinute: 5, perDay: 1000 });
const burst = (script: Script, k = key) => runProbeAlone({ probe: 'burst', keys: [k], script });

/** An accepted answer with the Limit, Remaining and Reset (run-clock ms) given. */
const ok = (r: Received, remaining: number, reset = r.at + 30_000, limit = 5): Answer => ({
  status: 200,
  headers: limitHeaders(limit, remaining, reset, r.at),
  body: [PET],
});
const refused = (r: Received, reset = r.at + 30_000): Answer => ({
  status: 429,
  headers: { ...limitHeaders(5, 0, reset, r.at), 'Retry-After': '30' },
  body: errorBody(429),
});

/** The burst's ten requests (Limit+5) accepted; what comes after is `after`'s. */
function burstAccepted(after: (r: Received, reset: number) => Answer): Script {
  let reset = 0;
  return (r) => {
    reset ||= r.at + 30_000;
    return r.n <= 10 ? ok(r, 0, reset) : after(r, reset);
  };
}

describe('burst probe, alone against a scripted target', () => {
  it('a limiter that admits the limit of a burst and refuses the rest: held', async () => {
    const run = await burst(fixedWindow([key]));
    expect(run.status(ID)).toEqual({ status: 'pass', text: '' });
    expect(run.received).toHaveLength(10);
    expect(run.outcome(ID)?.info.repeatedRemaining).toBe('every accepted answer showed its own Remaining');
  });

  it('seven of ten admitted with three refused in the burst: fails', async () => {
    const run = await burst(fixedWindow([key], { limit: () => 7, announced: () => 5 }));
    expect(run.status(ID).status).toBe('fail');
    expect(run.status(ID).text).toBe('7 of 10 simultaneous requests accepted; the limit is 5');
  });

  it('all admitted, and the request after the burst refused: fails, saying so', async () => {
    const run = await burst(burstAccepted((r, reset) => refused(r, reset)));
    expect(run.status(ID).status).toBe('fail');
    expect(run.status(ID).text).toContain('10 of 10 simultaneous requests accepted; the limit is 5');
    expect(run.status(ID).text).toContain('a request sent afterwards was refused');
  });

  it('all admitted, and the request after it accepted with Remaining left: fails, the counter missed requests', async () => {
    let reset = 0;
    const run = await burst((r) => {
      reset ||= r.at + 30_000;
      return r.n <= 10 ? ok(r, 0, reset) : ok(r, 3, reset);
    });
    expect(run.status(ID).status).toBe('fail');
    expect(run.status(ID).text).toContain('accepted with Remaining 3: the counter missed requests of the burst');
  });

  it('all admitted and two more with nothing left: skipped, the target does not enforce at all', async () => {
    let reset = 0;
    const run = await burst((r) => ok(r, 0, (reset ||= r.at + 30_000)));
    expect(run.status(ID).status).toBe('skip');
    expect(run.status(ID).text).toContain('accepts sequential requests beyond its limit');
    expect(run.received).toHaveLength(12);
  });

  it('the request after the burst gets no whole response: skipped', async () => {
    const run = await burst(burstAccepted((r, reset) => ({ ...ok(r, 0, reset), cut: true })));
    expect(run.status(ID).status).toBe('skip');
    expect(run.status(ID).text).toContain('the request after the burst got no whole response');
  });

  it('the request after the burst in a new window: skipped, not judged', async () => {
    let reset = 0;
    const run = await burst((r) => {
      reset ||= r.at + 30_000;
      return r.n <= 10 ? ok(r, 0, reset) : ok(r, 4, reset + 60_000);
    });
    expect(run.status(ID).status).toBe('skip');
    expect(run.status(ID).text).toContain('the window ended before a request after the burst could show');
  });

  it('a burst over two windows with nothing refused, neither offered more than the limit: burst again', async () => {
    // A target that enforces nothing; the first burst's window ends after its fifth request (a busy machine's burst
    // on a fast clock), so neither window saw more than the limit.
    let first = 0;
    let reset = 0;
    let count = 0;
    const run = await burst((r) => {
      first ||= r.at + 1000;
      if (r.n <= 5) return ok(r, 5 - r.n, first);
      if (r.n === 6 || r.at >= reset) [reset, count] = [r.n === 6 ? first + 60_000 : r.at + 60_000, 0];
      count++;
      return ok(r, Math.max(0, 5 - count), reset);
    });
    // Judged on the second burst, as on a quiet machine: the target does not enforce at all.
    expect(run.status(ID).status).toBe('skip');
    expect(run.status(ID).text).toContain('accepts sequential requests beyond its limit');
    expect(run.outcome(ID)?.info.note).toBeUndefined();
    // Ten over two windows, ten on the next, and the two after it.
    expect(run.received).toHaveLength(22);
  });

  it('every burst over two windows with nothing refused: skipped after the third, not judged', async () => {
    // Each window the target opens ends after five requests: no burst can offer one more than the limit.
    let reset = 0;
    let count = 0;
    const run = await burst((r) => {
      if (count === 5 || r.at >= reset) [reset, count] = [Math.max(r.at, reset) + 60_000, 0];
      count++;
      return ok(r, 5 - count, reset);
    });
    expect(run.status(ID).status).toBe('skip');
    expect(run.status(ID).text).toBe(
      'none of 3 bursts on fresh windows sampled one; the last: 10 of 10 accepted over two windows with nothing refused: no window was offered more than its limit; not judged',
    );
    expect(run.received).toHaveLength(30);
  });

  it('a burst over two windows, each admitting at most the limit: held, with a note', async () => {
    let reset = 0;
    const run = await burst((r) => {
      reset ||= r.at + 30_000;
      if (r.n <= 4) return ok(r, 5 - r.n, reset);
      return r.n <= 8 ? ok(r, 9 - r.n, reset + 60_000) : refused(r, reset + 60_000);
    });
    expect(run.status(ID)).toEqual({ status: 'pass', text: '' });
    expect(run.outcome(ID)?.info.note).toContain('straddled two windows');
  });

  it('Resets that move with the requests: skipped, a refill is enforced and algorithm’s to judge', async () => {
    const run = await burst((r) => (r.n <= 8 ? ok(r, 4, r.at + 30_000 + r.n * 3000) : refused(r)));
    expect(run.status(ID).status).toBe('skip');
    expect(run.status(ID).text).toContain('under Resets that moved with the requests');
  });

  it('a bucket whose refill admitted the rest of a slow burst (Resets a minute apart, all over): held, with a note', async () => {
    // Each answer takes 1.1 real s (66 s of the 60x clock): the bucket gives back 5 a minute, 6 over the burst.
    const run = await burst(async (r) => {
      await sleep(1100);
      return ok(r, 4 - (r.n % 5), r.at + (r.n - 1) * 6600);
    });
    expect(run.status(ID)).toEqual({ status: 'pass', text: '' });
    expect(run.outcome(ID)?.info.note).toMatch(
      /^10 of 10 accepted while the burst lasted \d+\.\d s, under Resets that moved with the requests: no more beyond the limit than the [67] its refill gave back meanwhile$/,
    );
    expect(run.received).toHaveLength(10);
  });

  it('Resets a minute apart, all over, and more admitted than the refill explains: skipped, not taken again', async () => {
    const run = await burst((r) => (r.n <= 10 ? ok(r, 4, r.at + 1000 + (r.n - 1) * 6600) : refused(r)));
    expect(run.status(ID).status).toBe('skip');
    expect(run.status(ID).text).toContain('under Resets that moved with the requests');
    expect(run.received).toHaveLength(10);
  });

  it('a burst whose answers take a whole window: skipped, with the time-scale advice', async () => {
    let reset = 0;
    const run = await burst(async (r) => {
      reset ||= r.at + 30_000;
      await sleep(1100); // 66 s of a clock 60 times faster
      return ok(r, 0, reset);
    });
    expect(run.status(ID).status).toBe('skip');
    expect(run.status(ID).text).toContain('the burst lasted a whole window; not judged');
    expect(run.status(ID).text).toContain('a smaller --time-scale');
  });

  it('an announced minute Limit above the plan: burst again with it on a fresh window, judged by it', async () => {
    const run = await burst(fixedWindow([key], { limit: () => 7 }));
    expect(run.status(ID)).toEqual({ status: 'pass', text: '' });
    expect(run.outcome(ID)?.info.announcedLimit).toBe(7);
    // 10 requests, then Limit 7 + 5 = 12 in the next window.
    expect(run.received).toHaveLength(22);
  });

  it('one over the limit within a declared tolerance of 20%: held', async () => {
    const tolerant = figuresKey('free', 1, { perMinute: 5, perDay: 1000, tolerance: 0.2 });
    const run = await burst(fixedWindow([tolerant], { limit: () => 6, announced: () => 5 }), tolerant);
    expect(run.status(ID)).toEqual({ status: 'pass', text: '' });
  });
});

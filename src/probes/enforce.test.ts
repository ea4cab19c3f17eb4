/**
 * The enforce probe alone, each of its decisions taken by a scripted loopback target (src/testing/probe-harness.ts):
 * the count judged at once, rolled over onto a fresh window, taken again strictly in sequence, a window found
 * partly spent, the refill follow-up, and each way ratelimit.enforced and ratelimit.remaining-decrements are failed
 * or skipped.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { enforceProbe } from './enforce.js';
import { describe, expect, it } from 'vitest';
import {
  type Answer,
  fixedWindow,
  figuresKey,
  limitHeaders,
  type Received,
  runProbeAlone,
  type Script,
  withProbeContext,
} from '../testing/probe-harness.js';

const ENFORCED = 'ratelimit.enforced' as const;
const DECREMENTS = 'ratelimit.remaining-decrements' as const;
const key5 = figuresKey('free', 1, { perMinute: 5, perDay: 1000 });
const key20 = figuresKey('free', 1, { perMinute: 20, perDay: 1000 });

const enforce = (script: Script, key = key5) => runProbeAlone({ probe: 'enforce', keys: [key], script });

/**
 * A script whose answers to the requests `when` picks come `ms` real ms late, but for the one opening a window: the
 * round trip the probe sizes its bulk by (in-flight.ts) stays a loopback one, 8 in flight and a tail of 2 to 8. At
 * 250 ms (15 s of the run clock) a count of 20 outlives its minute whatever that tail.
 */
function slowed(limiter: ReturnType<typeof fixedWindow>, ms: number, when: (r: Received) => boolean): Script {
  return async (r) => {
    const w = limiter.windows.get(r.secret ?? '');
    const opens = w === undefined || r.at >= w.start + 60_000;
    if (!opens && when(r)) await sleep(ms);
    return limiter(r);
  };
}

/**
 * A counter that misses concurrent requests (a read, a pause, a write: the lost update): requests that overlap are
 * counted once. `racyWindows`: in which of the key's windows (0: its first) it races; elsewhere it counts each.
 */
function racy(keys = [key20], racyWindows: (index: number) => boolean = () => true, slowMs = 0) {
  const limiter = fixedWindow(keys);
  return async (r: Received): Promise<Answer> => {
    const w = limiter.windows.get(r.secret ?? '');
    const open = w !== undefined && r.at < w.start + 60_000;
    if (!open || !racyWindows(w.index)) {
      if (slowMs > 0 && open) await sleep(slowMs);
      return limiter(r);
    }
    const seen = w.used;
    await sleep(5);
    const after = w.used;
    w.used = seen;
    const a = limiter(r);
    w.used = Math.max(after, w.used);
    return a;
  };
}

describe('enforce probe, alone against a scripted target', () => {
  it('a compliant fixed window: Limit accepted, the next refused with 429, Limit-1 on the first answer', async () => {
    const run = await enforce(fixedWindow([key5]));
    expect(run.status(ENFORCED)).toEqual({ status: 'pass', text: '' });
    expect(run.status(DECREMENTS).status).toBe('pass');
    // Five accepted and the sixth refused, nothing after the 429.
    expect(run.received).toHaveLength(6);
    expect(run.outcome(ENFORCED)?.info.admission).toMatchObject({ accepted: 5, sold: 5, atLeast: false });
  });

  it('sends its request over the limit to GET /store/orders once: refused with 429 there, the check holds', async () => {
    const run = await enforce(fixedWindow([key5]));
    expect(run.received.map((r) => r.path.split('?')[0])).toEqual([...Array(5).fill('/pets'), '/store/orders']);
    expect(run.status(ENFORCED)).toEqual({ status: 'pass', text: '' });
  });

  it('GET /store/orders outside the limiter (200, no headers, not counted): fails, naming the endpoint', async () => {
    const limiter = fixedWindow([key5]);
    const run = await enforce((r) =>
      r.path.startsWith('/store/orders') ? { status: 200, body: [{ id: 1 }] } : limiter(r),
    );
    expect(run.status(ENFORCED).status).toBe('fail');
    expect(run.outcome(ENFORCED)?.evidence.map((e) => e.message)).toContain(
      "GET /store/orders answered 200 once the key's window was spent: a request over the limit gets 429 on any endpoint",
    );
  });

  it('GET /store/orders missing (404): not counted, the count goes on with GET /pets and holds', async () => {
    const limiter = fixedWindow([key5]);
    const run = await enforce((r) => (r.path.startsWith('/store/orders') ? { status: 404, body: {} } : limiter(r)));
    expect(run.received.map((r) => r.path.split('?')[0])).toEqual([
      ...Array(5).fill('/pets'),
      '/store/orders',
      '/pets',
    ]);
    expect(run.status(ENFORCED)).toEqual({ status: 'pass', text: '' });
    expect(run.outcome(ENFORCED)?.info.admission).toMatchObject({ accepted: 5, sold: 5 });
  });

  it('a count that rolled over into a second window is taken again on a fresh one (rollover, then judged)', async () => {
    const limiter = fixedWindow([key20]);
    // The first window's answers come slowly: the sequence outlives the minute and the new window admits more.
    const run = await enforce(
      slowed(limiter, 250, () => (limiter.windows.get(key20.secret)?.index ?? 0) === 0),
      key20,
    );
    expect(run.status(ENFORCED).status).toBe('pass');
    expect(limiter.windows.get(key20.secret)!.index).toBeGreaterThanOrEqual(2);
  });

  it('a count that rolls over twice skips ratelimit.enforced: the requests reached the target too slowly', async () => {
    const run = await enforce(
      slowed(fixedWindow([key20]), 250, () => true),
      key20,
    );
    expect(run.status(ENFORCED)).toMatchObject({ status: 'skip' });
    expect(run.status(ENFORCED).text).toContain('the limiter restarted');
    expect(run.status(ENFORCED).text).toContain('twice');
  });

  it('over-admitted by requests sent together: counted again strictly in sequence, which a racy counter passes', async () => {
    const run = await enforce(racy(), key20);
    expect(run.status(ENFORCED)).toEqual({ status: 'pass', text: '' });
    // The first count was over-admitted (more than 21 requests before a refusal), the second exact.
    expect(run.received.length).toBeGreaterThan(21 + 21);
  });

  it('over-admitted together, and the sequential counts outlive their windows twice: skipped naming no-over-admission', async () => {
    // The first window races (over-admits); every later one answers slowly, so a sequential count outlives it.
    const run = await enforce(
      racy([key20], (i) => i === 0, 120),
      key20,
    );
    expect(run.status(ENFORCED).status).toBe('skip');
    expect(run.status(ENFORCED).text).toContain('strictly sequential requests could not reach the limit');
    expect(run.status(ENFORCED).text).toContain('ratelimit.no-over-admission');
  });

  it('a window already partly spent at the first request: waited out, then counted on a fresh one', async () => {
    const limiter = fixedWindow([key5], { spent: (_k, i) => (i === 0 ? 2 : 0) });
    const run = await enforce(limiter);
    expect(run.logs.join('\n')).toContain('window was already open and partly spent');
    expect(run.status(ENFORCED).status).toBe('pass');
    expect(run.status(DECREMENTS).status).toBe('pass');
    expect(limiter.windows.get(key5.secret)!.index).toBe(1);
  });

  it('a window partly spent again after the wait: remaining-decrements skips, naming key-isolation', async () => {
    const run = await enforce(fixedWindow([key5], { spent: () => 2 }));
    expect(run.outcome(DECREMENTS)?.skipped).toBeGreaterThan(0);
    expect(run.status(DECREMENTS).text).toContain('already in use when the probe started, and again after it ended');
    expect(run.status(DECREMENTS).text).toContain('ratelimit.key-isolation');
  });

  it('refused at once, and again once that window ended: both checks skip, the 429 left for others', async () => {
    const refuseAll: Script = (r) => ({
      status: 429,
      headers: { ...limitHeaders(5, 0, r.at + 2000, r.at), 'Retry-After': '2' },
    });
    const run = await enforce(refuseAll);
    expect(run.status(ENFORCED).status).toBe('skip');
    for (const id of [ENFORCED, DECREMENTS])
      expect(run.status(id).text).toContain('the first request of a fresh window was refused, again after');
    expect(run.received).toHaveLength(2);
  });

  it('a request of the count gets no whole response: both checks skip, naming contract.transport', async () => {
    const limiter = fixedWindow([key5]);
    const run = await enforce((r) => (r.n === 3 ? { ...limiter(r), cut: true } : limiter(r)));
    expect(run.status(ENFORCED)).toMatchObject({ status: 'skip' });
    for (const id of [ENFORCED, DECREMENTS])
      expect(run.status(id).text).toContain('what the target counted is unknown');
  });

  it('a first answer refused with a 5xx: remaining-decrements skips, enforced fails for 0 accepted', async () => {
    const limiter = fixedWindow([key5]);
    const run = await enforce((r) => (r.n === 1 ? { status: 503 } : limiter(r)));
    expect(run.outcome(DECREMENTS)?.skipped).toBeGreaterThan(0);
    expect(run.status(DECREMENTS).text).toContain('first request of the window was refused');
    expect(run.status(ENFORCED)).toMatchObject({ status: 'fail' });
    expect(run.status(ENFORCED).text).toContain('refused (503) after 0 accepted requests; the limit is 5');
  });

  it('no X-RateLimit-* on the first answer: remaining-decrements skips for the headers, enforced still judged', async () => {
    const limiter = fixedWindow([key5]);
    const run = await enforce((r) => {
      const a = limiter(r);
      return r.n === 1 ? { ...a, headers: {} } : a;
    });
    expect(run.outcome(DECREMENTS)?.skipped).toBeGreaterThan(0);
    expect(run.status(DECREMENTS).text).toContain('first response has no usable X-RateLimit-*');
    expect(run.status(ENFORCED).status).toBe('pass');
  });

  it('a first answer showing Remaining = Limit fails remaining-decrements', async () => {
    const limiter = fixedWindow([key5]);
    const run = await enforce((r) => {
      const a = limiter(r);
      return r.n === 1 ? { ...a, headers: limitHeaders(5, 5, r.at + 60_000, r.at) } : a;
    });
    expect(run.status(DECREMENTS).status).toBe('fail');
    expect(run.status(DECREMENTS).text).toContain('shows Remaining 5 with Limit 5 (expected 4)');
  });

  it('an announced Limit below the plan: counted against it, the figure recorded', async () => {
    const run = await enforce(fixedWindow([key5], { limit: () => 4 }));
    expect(run.status(ENFORCED).status).toBe('pass');
    expect(run.outcome(ENFORCED)?.info.announcedLimit).toBe(4);
  });

  it('never refused: fails, request Limit+1 was not refused', async () => {
    const run = await enforce(fixedWindow([key5], { limit: () => 1000, announced: () => 5 }));
    expect(run.status(ENFORCED).status).toBe('fail');
    expect(run.status(ENFORCED).text).toContain('the limit is 5 a minute: request 6 was not refused');
  });

  it('two over the limit before the 429: fails with the count', async () => {
    const run = await enforce(fixedWindow([key5], { limit: () => 7, announced: () => 5 }));
    expect(run.status(ENFORCED).status).toBe('fail');
    expect(run.status(ENFORCED).text).toMatch(/^7 requests accepted within .* before the first refusal \(429\)/);
  });

  it('one over the limit, within a declared 20% tolerance: held', async () => {
    const tolerant = figuresKey('free', 1, { perMinute: 5, perDay: 1000, tolerance: 0.2 });
    const run = await enforce(fixedWindow([tolerant], { limit: () => 6, announced: () => 5 }), tolerant);
    expect(run.status(ENFORCED)).toEqual({ status: 'pass', text: '' });
    expect(run.outcome(ENFORCED)?.info.admission).toMatchObject({ accepted: 6, sold: 5, tolerance: 0.2 });
  });

  it('refused early: fails with how many were accepted', async () => {
    const run = await enforce(fixedWindow([key5], { limit: () => 3, announced: () => 5 }));
    expect(run.status(ENFORCED).status).toBe('fail');
    expect(run.status(ENFORCED).text).toContain('refused (429) after 3 accepted requests; the limit is 5');
  });

  it('request Limit+1 refused with a 503: fails, not a 429', async () => {
    const limiter = fixedWindow([key5]);
    const run = await enforce((r) => {
      const a = limiter(r);
      return a.status === 429 ? { ...a, status: 503 } : a;
    });
    expect(run.status(ENFORCED).status).toBe('fail');
    expect(run.status(ENFORCED).text).toContain('request 6 answered 503 instead of 429');
  });

  it('a short Retry-After the limiter keeps: the follow-up is refused, and the check holds', async () => {
    const run = await enforce(fixedWindow([key5], { retryAfter: () => 1 }));
    expect(run.status(ENFORCED)).toEqual({ status: 'pass', text: '' });
    // Six, then the follow-up once the second had passed.
    expect(run.received).toHaveLength(7);
    expect(run.received[6]!.at - run.received[5]!.at).toBeGreaterThanOrEqual(1000);
  });

  it('a short Retry-After after which the limiter refills within the minute: fails (the refill path)', async () => {
    let refused = 0;
    const limiter = fixedWindow([key5], { retryAfter: () => 1 });
    // A token bucket: once it has refused, one token comes back by the end of the wait.
    const refilling: Script = (r) => {
      const w = limiter.windows.get(key5.secret);
      if (w && refused > 0 && w.used >= 5) w.used = 4;
      const a = limiter(r);
      if (a.status === 429) refused++;
      return a;
    };
    const run = await enforce(refilling);
    expect(run.status(ENFORCED).status).toBe('fail');
    expect(run.status(ENFORCED).text).toContain(
      'after the 429, the request sent once its Retry-After (1 s) had passed was accepted',
    );
  });

  it('refused early by no more than other probes sent meanwhile: skipped, naming key-isolation', async () => {
    // The runner's reading of other probes' requests (ProbeContext.othersMark): five sent since the mark.
    const run = await withProbeContext(
      { keys: [key5], script: fixedWindow([key5], { limit: () => 3, announced: () => 5 }) },
      (ctx) => enforceProbe.run({ ...ctx, othersMark: () => () => 5 }, 'free'),
    );
    expect(run.status(ENFORCED).status).toBe('skip');
    expect(run.status(ENFORCED).text).toContain(
      'refused after 3 of 5 accepted requests, while other probes sent requests',
    );
    expect(run.status(ENFORCED).text).toContain('ratelimit.key-isolation');
  });
});

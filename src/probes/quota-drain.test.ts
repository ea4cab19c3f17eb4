/**
 * The quota-drain probe alone, each of its decisions taken by a scripted loopback target
 * (src/testing/probe-harness.ts): unknown keys not counted, counted (the valid key refused, or its Remaining
 * taken), the window changing once and twice, an answer that is not whole, no headers, and a 429 to the unknown keys.
 */
import { describe, expect, it } from 'vitest';
import {
  figuresKey,
  fixedWindow,
  type Received,
  runProbeAlone,
  type Script,
  withProbeContext,
} from '../testing/probe-harness.js';
import { quotaDrainProbe } from './quota-drain.js';

const ID = 'auth.no-quota-drain' as const;
const key = figuresKey('free', 1, { perMinute: 100, perDay: 1000 });
// Fifty-two requests one after another last more than a minute of a clock 60 times faster: 10 leaves room.
const drain = (script: Script) => runProbeAlone({ probe: 'quota-drain', keys: [key], script, scale: 10 });
const valid = (r: Received) => r.secret === key.secret;

/** A fixed window that counts `cost` against the valid key for each request with an unknown key. */
function counting(cost: number, limit = 100) {
  const limiter = fixedWindow([key], { limit: () => limit });
  return (r: Received) => {
    if (valid(r)) return limiter(r);
    const w = limiter.windows.get(key.secret);
    if (w) w.used += cost;
    return limiter(r);
  };
}

describe('quota-drain probe, alone against a scripted target', () => {
  it('unknown keys not counted against the valid key: held', async () => {
    const run = await drain(fixedWindow([key]));
    expect(run.status(ID)).toEqual({ status: 'pass', text: '' });
    expect(run.received.filter((r) => !valid(r))).toHaveLength(50);
  });

  it("each unknown key's request taken from the valid key's Remaining: fails with the fall", async () => {
    const run = await drain(counting(1));
    expect(run.status(ID).status).toBe('fail');
    expect(run.status(ID).text).toBe('Remaining went 99 → 48 across 50 invalid-key requests (expected at least 98)');
  });

  it('the valid key refused after the unknown keys spent its window: fails', async () => {
    const run = await drain(counting(1, 20));
    expect(run.status(ID).status).toBe('fail');
    expect(run.status(ID).text).toBe('after 50 requests with invalid keys, the valid key is refused (429)');
  });

  it('the window changed once during the sequence: measured again, and judged', async () => {
    const limiter = fixedWindow([key]);
    let onKey = 0;
    const run = await drain((r) => {
      const a = limiter(r);
      if (!valid(r) || ++onKey !== 2) return a;
      // The second answer on the key from a window two minutes on.
      const reset = Number(a.headers!['X-RateLimit-Reset']) + 120;
      return { ...a, headers: { ...a.headers, 'X-RateLimit-Reset': String(reset) } };
    });
    expect(run.status(ID)).toEqual({ status: 'pass', text: '' });
    expect(run.received.filter(valid)).toHaveLength(4);
    // Taken again beyond the plan, and said (the schedule's report counts it: ProbeContext.again).
    expect(run.logs).toContain('quota-drain [free]: the window changed during the sequence; measured again');
  });

  it('the window changed every time: skipped, not judged', async () => {
    const limiter = fixedWindow([key]);
    let onKey = 0;
    const run = await drain((r) => {
      const a = limiter(r);
      if (!valid(r)) return a;
      const reset = Number(a.headers!['X-RateLimit-Reset']) + 120 * ++onKey;
      return { ...a, headers: { ...a.headers, 'X-RateLimit-Reset': String(reset) } };
    });
    expect(run.status(ID).status).toBe('skip');
    expect(run.status(ID).text).toBe('the window changed during the sequence twice; not judged');
  });

  it('the last answer on the key is not whole: skipped', async () => {
    const limiter = fixedWindow([key]);
    let onKey = 0;
    const run = await drain((r) => (valid(r) && ++onKey === 2 ? { ...limiter(r), cut: true } : limiter(r)));
    expect(run.status(ID).status).toBe('skip');
    expect(run.status(ID).text).toContain('no whole response');
  });

  it('no X-RateLimit-* on the answers: skipped, naming the header checks', async () => {
    const limiter = fixedWindow([key]);
    const run = await drain((r) => ({ ...limiter(r), headers: {} }));
    expect(run.status(ID).status).toBe('skip');
    expect(run.status(ID).text).toContain('no usable X-RateLimit-* headers');
    expect(run.status(ID).text).toContain('ratelimit.headers-present');
  });

  it('a 429 to the unknown keys: its Retry-After waited, and fifty are still sent', async () => {
    const limiter = fixedWindow([key]);
    let unknown = 0;
    const run = await drain((r) =>
      !valid(r) && ++unknown === 1 ? { status: 429, headers: { 'Retry-After': '1' } } : limiter(r),
    );
    expect(run.status(ID)).toEqual({ status: 'pass', text: '' });
    const invalid = run.received.filter((r) => !valid(r));
    expect(invalid).toHaveLength(51);
    expect(invalid[1]!.at - invalid[0]!.at).toBeGreaterThanOrEqual(1000);
  });

  it('a fall no larger than other probes had out, twice: skipped, naming key-isolation', async () => {
    // The runner's reading of other probes' requests (ProbeContext.othersMark): sixty out meanwhile.
    const run = await withProbeContext({ keys: [key], script: counting(1, 200), scale: 10 }, (ctx) =>
      quotaDrainProbe.run({ ...ctx, othersMark: () => () => 60 }, 'free'),
    );
    expect(run.status(ID).status).toBe('skip');
    expect(run.status(ID).text).toMatch(/^Remaining went \d+ → \d+ while other probes had 60 requests out, twice: /);
    expect(run.status(ID).text).toContain('ratelimit.key-isolation');
  });
});

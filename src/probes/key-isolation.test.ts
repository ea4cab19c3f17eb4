/**
 * The key-isolation probe alone, each of its decisions taken by a scripted loopback target
 * (src/testing/probe-harness.ts): keys counted apart, counted together (refused, or Remaining taken), key A that
 * cannot be exhausted, whose window ends during its count (exhausted again) or whose count is lost, an answer to B
 * that is not whole, B in a new window.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import type { ApiKey } from '../core/api-key.js';
import {
  type Answer,
  figuresKey,
  fixedWindow,
  limitHeaders,
  PET,
  type Received,
  runProbeAlone,
  type Script,
} from '../testing/probe-harness.js';

const ID = 'ratelimit.key-isolation' as const;
const a = figuresKey('free', 1, { perMinute: 5, perDay: 1000 });
const b = figuresKey('free', 2, { perMinute: 5, perDay: 1000 });
const isolation = (script: Script, keys = [a, b]) => runProbeAlone({ probe: 'key-isolation', keys, script });

/** A fixed window per key, except that B's answers after its first (the one after A is spent) are `second`'s. */
function secondOnB(second: (r: Received, limiter: ReturnType<typeof fixedWindow>) => Answer): Script {
  const limiter = fixedWindow([a, b]);
  let onB = 0;
  return (r) => (r.secret === b.secret && ++onB === 2 ? second(r, limiter) : limiter(r));
}

describe('key-isolation probe, alone against a scripted target', () => {
  it('keys counted apart: B accepted with its own Remaining after A is spent', async () => {
    const run = await isolation(fixedWindow([a, b]));
    expect(run.status(ID)).toEqual({ status: 'pass', text: '' });
    expect(run.received.filter((r) => r.secret === b.secret)).toHaveLength(2);
  });

  it('one counter for both keys: B refused once A is spent, fails', async () => {
    const limiter = fixedWindow([a]);
    const run = await isolation((r) => limiter({ ...r, secret: r.secret === null ? null : a.secret }));
    expect(run.status(ID).status).toBe('fail');
    expect(run.status(ID).text).toMatch(
      /^after exhausting key free#1 \(…k001\), key free#2 \(…k002\) is refused \(429\)$/,
    );
  });

  it("A's requests taken from B's Remaining: fails with the fall", async () => {
    const run = await isolation(
      secondOnB((r, limiter) => {
        const w = limiter.windows.get(b.secret)!;
        w.used = 3; // two more than B's own request
        return limiter(r);
      }),
    );
    expect(run.status(ID).status).toBe('fail');
    expect(run.status(ID).text).toContain(
      "key B's Remaining went 4 → 1 while key A was exhausted (expected at least 3)",
    );
  });

  it('B in a new window after A is spent: accepted is all that is judged, held', async () => {
    const run = await isolation(
      secondOnB((r) => ({ status: 200, headers: limitHeaders(5, 1, r.at + 120_000, r.at), body: [PET] })),
    );
    expect(run.status(ID)).toEqual({ status: 'pass', text: '' });
  });

  it('the answer to B after A is spent is not whole: skipped', async () => {
    const run = await isolation(secondOnB((r, limiter) => ({ ...limiter(r), cut: true })));
    expect(run.status(ID).status).toBe('skip');
    expect(run.status(ID).text).toContain('no whole response');
  });

  it('key A never refused: skipped, naming ratelimit.enforced', async () => {
    const run = await isolation(fixedWindow([a, b], { limit: () => 1000, announced: () => 5 }));
    expect(run.status(ID).status).toBe('skip');
    expect(run.status(ID).text).toContain('key A could not be exhausted');
    expect(run.status(ID).text).toContain('ratelimit.enforced');
  });

  it("A's window ends during its exhaust (a busy machine): exhausted again in the next, judged", async () => {
    const [a20, b20] = [1, 2].map((n) => figuresKey('free', n, { perMinute: 20, perDay: 1000 })) as [ApiKey, ApiKey];
    const limiter = fixedWindow([a20, b20]);
    let onA = 0;
    const run = await isolation(
      async (r) => {
        if (r.secret !== a20.secret || ++onA !== 15) return limiter(r);
        // The 15th request of A's count, one by one in its tail, answered 66 s later on this clock: A's window has
        // ended, and what is left of the count fits in the next one.
        await sleep(1100);
        return limiter({ ...r, at: r.at + 66_000 });
      },
      [a20, b20],
    );
    expect(run.status(ID)).toEqual({ status: 'pass', text: '' });
    expect(run.received.filter((r) => r.secret === b20.secret)).toHaveLength(3);
  });

  it("A's window ends during each of its exhausts: skipped, not judged (no claim on ratelimit.enforced)", async () => {
    const [a20, b20] = [1, 2].map((n) => figuresKey('free', n, { perMinute: 20, perDay: 1000 })) as [ApiKey, ApiKey];
    const limiter = fixedWindow([a20, b20]);
    let onA = 0;
    let late = 0;
    const run = await isolation(
      async (r) => {
        if (r.secret !== a20.secret || ++onA % 13 !== 0) return limiter({ ...r, at: r.at + late });
        await sleep(1100);
        late += 66_000;
        return limiter({ ...r, at: r.at + late });
      },
      [a20, b20],
    );
    expect(run.status(ID).status).toBe('skip');
    expect(run.status(ID).text).toBe("key A's window ended before it was exhausted, 3 times; not judged");
  });

  it("a request of A's count gets no answer: skipped, the count unknown", async () => {
    const limiter = fixedWindow([a, b]);
    let onA = 0;
    const run = await isolation((r) =>
      r.secret === a.secret && ++onA === 2 ? { status: 200, drop: true } : limiter(r),
    );
    expect(run.status(ID).status).toBe('skip');
    expect(run.status(ID).text).toContain('key A: a request got no whole response');
  });

  it('one key of the plan: skipped, two are needed', async () => {
    const run = await isolation(fixedWindow([a]), [a]);
    expect(run.status(ID).status).toBe('skip');
    expect(run.status(ID).text).toContain('needs two keys');
  });
});

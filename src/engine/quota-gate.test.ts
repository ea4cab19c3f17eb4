import { describe, expect, it } from 'vitest';
import { PLANS } from '../api/plans.js';
import type { PetloadError } from '../core/errors.js';
import type { Exchange, RequestSpec } from '../http/exchange.js';
import { cheapList } from '../probes/context.js';
import { buildExchange, FIXED_NOW_S, rateLimitHeaders, testKey } from '../testing/exchange-builder.js';
import type { Estimate } from './estimate.js';
import { createQuotaGate } from './quota-gate.js';

const free1 = testKey('free', 1);
const free2 = testKey('free', 2, 'abcd');

/** An estimate of `perKey` requests on each of free#1 and free#2. */
const estimate = (perKey: number): Estimate =>
  ({
    plans: [{ plan: 'free', probes: 2 * perKey, load: 0, total: 2 * perKey }],
    requestsByKey: { [free1.label]: perKey, [free2.label]: perKey },
  }) as unknown as Estimate;

function gate(allow = false) {
  const said: string[] = [];
  const notes: string[] = [];
  const stops: PetloadError[] = [];
  const g = createQuotaGate({
    allow,
    say: (l) => said.push(l),
    note: (l) => notes.push(l),
    stop: (e) => stops.push(e),
  });
  return { g, said, notes, stops };
}

/** A send path that answers when told to, recording the order of sends. */
function wire(answer: (spec: RequestSpec) => Exchange) {
  const sent: string[] = [];
  const pending: (() => void)[] = [];
  const next = (spec: RequestSpec) => {
    sent.push(spec.auth.kind === 'key' ? spec.auth.key.label : 'none');
    return new Promise<Exchange>((resolve) => pending.push(() => resolve(answer(spec))));
  };
  const flush = async () => {
    for (let i = 0; i < 5; i++) {
      for (const p of pending.splice(0)) p();
      await new Promise((r) => setImmediate(r));
    }
  };
  return { sent, next, flush };
}

const dayAnswer = (remaining: number) => () =>
  buildExchange({ headers: rateLimitHeaders(PLANS.free.perDay, remaining, FIXED_NOW_S + 3600) });
const minuteAnswer = () => buildExchange({ headers: rateLimitHeaders(60, 59, FIXED_NOW_S + 30) });

describe('the quota gate', () => {
  it('refuses before any traffic a plan that needs more than its keys can have left today', () => {
    const { g } = gate();
    expect(() => g.expect(estimate(1100), [free1, free2])).toThrow(
      "the run would use up a key's daily quota: free needs 2,200 requests, more than at most 2,000 left today on its keys; nothing was sent",
    );
    expect(() => g.expect(estimate(1000), [free1, free2])).not.toThrow();
  });

  it("holds a key's other requests until its first answer, then lets them all go", async () => {
    const { g } = gate();
    g.expect(estimate(10), [free1, free2]);
    const w = wire(dayAnswer(500));
    const all = [g.send(cheapList(free1, 't'), w.next), g.send(cheapList(free1, 't'), w.next)];
    all.push(g.send(cheapList(free2, 't'), w.next));
    await new Promise((r) => setImmediate(r));
    // The second request on free#1 waits; free#2's first goes out beside free#1's.
    expect(w.sent).toEqual([free1.label, free2.label]);
    await w.flush();
    await Promise.all(all);
    expect(w.sent).toEqual([free1.label, free2.label, free1.label]);
  });

  it('stops the run at the first answer of a key with less left today than the run will still send on it', async () => {
    const { g, said, stops } = gate();
    g.expect(estimate(100), [free1, free2]);
    const w = wire(dayAnswer(50));
    const first = g.send(cheapList(free1, 't'), w.next);
    await w.flush();
    await first;
    expect(said).toEqual([`  ${free1.label}: 50 of 1,000 requests left today`]);
    expect(stops.map((e) => [e.code, e.message])).toEqual([
      [
        'E_SAFETY',
        `the run would use up a key's daily quota: ${free1.label} is to be sent 99 more requests, more than the 50 it has left today; nothing more was sent`,
      ],
    ]);
  });

  it('goes ahead, saying so, when allowed', async () => {
    const { g, said, stops } = gate(true);
    g.expect(estimate(100), [free1, free2]);
    const w = wire(dayAnswer(50));
    const first = g.send(cheapList(free1, 't'), w.next);
    await w.flush();
    await first;
    expect(stops).toEqual([]);
    expect(said[1]).toMatch(/^ {2}going ahead anyway \(--allow-quota-exhaustion\): the run would use up/);
  });

  it('says once that the day is unknown when the headers describe the minute window', async () => {
    const { g, said, notes, stops } = gate();
    g.expect(estimate(100), [free1, free2]);
    const w = wire(minuteAnswer);
    const sends = [g.send(cheapList(free1, 't'), w.next), g.send(cheapList(free2, 't'), w.next)];
    await w.flush();
    await Promise.all(sends);
    expect(stops).toEqual([]);
    expect(said).toHaveLength(1);
    expect(said[0]).toMatch(/today's remaining quota is unknown \(free#1 \(…wxyz\)'s first answer: its rate-limit/);
    expect(notes).toHaveLength(1);
  });

  it('reads the next answer when the first request got none', async () => {
    const { g, said } = gate();
    g.expect(estimate(10), [free1, free2]);
    let n = 0;
    const w = wire(() =>
      n++ === 0 ? buildExchange({ status: null, error: { kind: 'reset', message: 'reset' } }) : dayAnswer(500)(),
    );
    const a = g.send(cheapList(free1, 't'), w.next);
    await w.flush();
    await a;
    expect(said).toEqual([]);
    const b = g.send(cheapList(free1, 't'), w.next);
    await w.flush();
    await b;
    expect(said).toEqual([`  ${free1.label}: 500 of 1,000 requests left today`]);
  });

  it('sends the first request of a simultaneous batch alone on an unread key, and keeps the order of the answers', async () => {
    const { g } = gate();
    g.expect(estimate(10), [free1, free2]);
    const batches: number[] = [];
    const specs = [0, 1, 2].map((i) => ({ ...cheapList(free1, 't'), path: `/pets?limit=${i + 1}` }));
    const answers = await g.sendSimultaneous(specs, async (batch) => {
      batches.push(batch.length);
      return batch.map((s) => buildExchange({ path: s.path }));
    });
    expect(batches).toEqual([1, 2]);
    expect(answers.map((a) => a.path)).toEqual(['/pets?limit=1', '/pets?limit=2', '/pets?limit=3']);
    // Read: the next batch goes out whole.
    await g.sendSimultaneous(specs, async (batch) => {
      batches.push(batch.length);
      return batch.map((s) => buildExchange({ path: s.path }));
    });
    expect(batches).toEqual([1, 2, 3]);
  });

  it('passes everything straight through before the estimate arms it', async () => {
    const { g } = gate();
    const w = wire(dayAnswer(500));
    const all = [g.send(cheapList(free1, 't'), w.next), g.send(cheapList(free1, 't'), w.next)];
    expect(w.sent).toEqual([free1.label, free1.label]);
    await w.flush();
    await Promise.all(all);
  });
});

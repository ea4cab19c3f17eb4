/**
 * The what-counts probe alone, each of its decisions taken by a scripted loopback target
 * (src/testing/probe-harness.ts): which of 400 and 404 the target counts, a status other than the one asked for,
 * and headers that do not show one window; and whether a GET /store/orders answered 200 counts.
 */
import { describe, expect, it } from 'vitest';
import { whatCountsProbe } from './what-counts.js';
import {
  animalStore,
  type Answer,
  figuresKey,
  errorBody,
  type Received,
  runProbeAlone,
  withProbeContext,
  type Script,
} from '../testing/probe-harness.js';

const ID = 'ratelimit.what-counts' as const;
const key = figuresKey('free', 1, { perMinute: 100, perDay: 1000 });
const whatCounts = (script: Script) => runProbeAlone({ probe: 'what-counts', keys: [key], script });

/** The store, but the answers `free` picks are not counted (Remaining given back). */
function store(
  free: (r: Received, a: Answer) => boolean = () => false,
  change: (r: Received, a: Answer) => Answer = (_r, a) => a,
): Script {
  const s = animalStore([key]);
  return (r) => {
    const a = s(r);
    if (free(r, a)) s.windows.get(key.secret)!.used--;
    const given = free(r, a)
      ? {
          ...a,
          headers: { ...a.headers, 'X-RateLimit-Remaining': String(Number(a.headers!['X-RateLimit-Remaining']) + 1) },
        }
      : a;
    return change(r, given);
  };
}

describe('what-counts probe, alone against a scripted target', () => {
  it('every status counted: the facts say so, and the check passes as a record', async () => {
    const run = await whatCounts(store());
    expect(run.status(ID)).toEqual({ status: 'pass', text: '' });
    expect(run.outcome(ID)?.info).toMatchObject({ '400': 'counted', '404': 'counted' });
    expect(run.notes.join('\n')).toContain('free: quota use by status: 400 counted, 401 never charged to a key');
  });

  it('a 400 and a 404 not counted: said so', async () => {
    const run = await whatCounts(store((_r, a) => a.status === 400 || a.status === 404));
    expect(run.outcome(ID)?.info).toMatchObject({ '400': 'not counted', '404': 'not counted' });
  });

  it('a 404 where a 400 was asked for: not measured, saying what came instead', async () => {
    const run = await whatCounts(store(undefined, (r, a) => (r.method === 'POST' ? { ...a, status: 404 } : a)));
    expect(run.outcome(ID)?.info['400']).toBe('not measured: the probe got 404 instead');
  });

  it('no X-RateLimit-* on the 404: not measured, no headers in one window', async () => {
    const run = await whatCounts(
      store(undefined, (r, a) => (/^\/pets\/\d+$/.test(r.path) ? { ...a, headers: {} } : a)),
    );
    expect(run.outcome(ID)?.info['404']).toBe('not measured: no usable headers in one window');
    expect(run.outcome(ID)?.info['400']).toBe('counted');
  });

  it('the 404 answered from another window: not measured', async () => {
    const run = await whatCounts(
      store(undefined, (r, a) => {
        if (!/^\/pets\/\d+$/.test(r.path)) return a;
        const reset = String(Number(a.headers!['X-RateLimit-Reset']) + 60);
        return { ...a, headers: { ...a.headers, 'X-RateLimit-Reset': reset } };
      }),
    );
    expect(run.outcome(ID)?.info['404']).toBe('not measured: no usable headers in one window');
  });

  it("a fall other probes' requests could explain, twice: not measured, saying so", async () => {
    // The runner's reading of other probes' requests (ProbeContext.othersMark): one out at each step.
    const run = await withProbeContext({ keys: [key], script: store() }, (ctx) =>
      whatCountsProbe.run({ ...ctx, othersMark: () => () => 1 }, 'free'),
    );
    expect(run.outcome(ID)?.info['400']).toMatch(/^not measured: other probes had requests out meanwhile, and /);
    // The sequence twice: 200, 400, 404, 200 and GET /store/orders.
    expect(run.received).toHaveLength(10);
  });
});

describe('what-counts, GET /store/orders', () => {
  const ORDERS = 'GET /store/orders';
  /** The orders endpoint answered by `orders`, everything else by the store. */
  const withOrders = (orders: Script): Script => {
    const s = store();
    return (r) => (r.path.startsWith('/store/orders') ? orders(r) : s(r));
  };

  it('behind the key limiter: counted, and said so in the note', async () => {
    const run = await whatCounts(store());
    expect(run.received.map((r) => r.path.split('?')[0]).at(-1)).toBe('/store/orders');
    expect(run.outcome(ID)?.info[ORDERS]).toBe('counted');
    expect(run.status(ID).status).toBe('pass');
    expect(run.notes.join('\n')).toContain(`${ORDERS} counted`);
  });

  it('outside the limiter (200 without the headers): not measured, with the reason', async () => {
    const run = await whatCounts(withOrders(() => ({ status: 200, body: [{ id: 1 }] })));
    expect(run.outcome(ID)?.info[ORDERS]).toBe('not measured: no usable headers in one window');
  });

  it('missing (404): not measured, naming the status', async () => {
    const run = await whatCounts(withOrders(() => ({ status: 404, body: errorBody(404) })));
    expect(run.outcome(ID)?.info[ORDERS]).toBe('not measured: the probe got 404 instead');
  });
});

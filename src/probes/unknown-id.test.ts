/**
 * The unknown-id probe alone, each of its decisions taken by a scripted loopback target
 * (src/testing/probe-harness.ts): ids never created answered 404, or 200, an answer not whole, a refusal, and the
 * ids it picks above those the list shows.
 */
import { describe, expect, it } from 'vitest';
import {
  animalStore,
  type Answer,
  errorBody,
  figuresKey,
  runProbeAlone,
  type Script,
} from '../testing/probe-harness.js';

const ID = 'get.unknown-404' as const;
const key = figuresKey('free', 1, { perMinute: 100, perDay: 1000 });
const unknownId = (script: Script) => runProbeAlone({ probe: 'unknown-id', keys: [key], script });

/** The store, its answers to GET /pets/<n> (the `i`-th) changed by `get`. */
function store(get: (a: Answer, i: number) => Answer = (a) => a) {
  const s = animalStore([key]);
  let gets = 0;
  const script: Script = (r) => (/^\/pets\/\d+$/.test(r.path) ? get(s(r), gets++) : s(r));
  return Object.assign(script, { pets: s.pets });
}

describe('unknown-id probe, alone against a scripted target', () => {
  it('ids never created answered 404: held, each above the ids listed, then the largest int64', async () => {
    const s = store();
    s.pets.push({ id: 41, name: 'rex', categoryId: 1, status: 'available' });
    const run = await unknownId(s);
    expect(run.status(ID)).toEqual({ status: 'pass', text: '' });
    expect(run.received.map((r) => r.path)).toEqual([
      '/pets?limit=100',
      '/pets/1000044',
      '/pets/9223372036854775807',
      '/pets/not-a-number',
    ]);
  });

  it('an id never created answered 200: fails', async () => {
    const run = await unknownId(
      store((a, i) => (i === 0 ? { ...a, status: 200, body: { id: 1, name: 'x', categoryId: 1 } } : a)),
    );
    expect(run.status(ID)).toEqual({
      status: 'fail',
      text: 'GET /pets/1000003 (never created): expected 404, got 200',
    });
  });

  it('an answer not whole: skipped for that id, the other judged', async () => {
    const run = await unknownId(store((a, i) => (i === 1 ? { ...a, cut: true } : a)));
    expect(run.outcome(ID)).toMatchObject({ passed: 1, skipReasons: ['no whole response (see contract.transport)'] });
  });

  it('a refusal by the rate limit, three times: skipped', async () => {
    const refused = (a: Answer, i: number): Answer =>
      i < 3 ? { status: 429, headers: { ...a.headers, 'Retry-After': '1' }, body: errorBody(429) } : a;
    const run = await unknownId(store(refused));
    expect(run.outcome(ID)?.skipReasons[0]).toBe('refused by the rate limit, not judged');
  });
});

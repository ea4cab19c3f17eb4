/**
 * The input probe alone (the invalid-input table), each of its decisions taken by a scripted loopback target
 * (src/testing/probe-harness.ts): every invalid body refused with 400, one accepted, one refused by the rate limit,
 * one answer not whole, and an animal created from an invalid body found in a list.
 */
import { describe, expect, it } from 'vitest';
import {
  errorBody,
  figuresKey,
  fixedWindow,
  type Received,
  runProbeAlone,
  type Script,
} from '../testing/probe-harness.js';
import { INVALID_BODIES } from './input.js';

const ID = 'create.rejects-invalid' as const;
const key = figuresKey('free', 1, { perMinute: 100, perDay: 1000 });
const input = (script: Script) => runProbeAlone({ probe: 'input', keys: [key], script });

/** A store that refuses every POST with 400 (`post` may answer otherwise) and lists `listed` animals. */
function store(
  post: (r: Received, i: number) => ReturnType<Script> | null = () => null,
  listed: () => unknown[] = () => [],
) {
  const limiter = fixedWindow([key]);
  let posts = 0;
  return (r: Received) => {
    const a = limiter(r);
    if (a.status !== 200) return a;
    if (r.method === 'POST') return post(r, posts++) ?? { status: 400, headers: a.headers, body: errorBody(400) };
    return { ...a, body: listed() };
  };
}

describe('input probe, alone against a scripted target', () => {
  it('every invalid body refused with 400 and nothing listed: held', async () => {
    const run = await input(store());
    expect(run.status(ID)).toEqual({ status: 'pass', text: '' });
    expect(run.outcome(ID)?.passed).toBe(INVALID_BODIES.length);
    expect(run.received.filter((r) => r.method === 'POST')).toHaveLength(INVALID_BODIES.length);
    expect(run.received.filter((r) => r.method === 'GET')).toHaveLength(4);
  });

  it('a body without categoryId created (201): fails naming the row', async () => {
    const run = await input(
      store((_r, i) => (i === 1 ? { status: 201, body: { id: 7, name: 'x', categoryId: 1 } } : null)),
    );
    expect(run.status(ID).status).toBe('fail');
    expect(run.status(ID).text).toBe('missing categoryId: expected 400, got 201');
  });

  it('an animal created from an invalid body found in a list: fails naming it', async () => {
    let created: { id: number; name: string; categoryId: number } | null = null;
    const run = await input(
      store(
        (r, i) => {
          if (i !== 2) return null;
          created = { id: 9, name: (JSON.parse(r.body) as { name: string }).name, categoryId: 1 };
          return { status: 400, body: errorBody(400) };
        },
        () => (created ? [created] : []),
      ),
    );
    expect(run.status(ID).status).toBe('fail');
    expect(run.status(ID).text).toMatch(/^an animal was created from an invalid body: petload-invalid-.*-2 \(id 9\)$/);
  });

  it('a row refused by the rate limit twice: waited out and sent again, then judged', async () => {
    const run = await input(
      store((_r, i) => (i < 2 ? { status: 429, headers: { 'Retry-After': '1' }, body: errorBody(429) } : null)),
    );
    expect(run.status(ID)).toEqual({ status: 'pass', text: '' });
    expect(run.outcome(ID)?.passed).toBe(INVALID_BODIES.length);
  });

  it('a row refused by the rate limit three times: skipped, and the probe ended by its bounds', async () => {
    const run = await input(
      store((_r, i) => (i < 3 ? { status: 429, headers: { 'Retry-After': '1' }, body: errorBody(429) } : null)),
    );
    expect(run.status(ID).status).toBe('skip');
    expect(run.outcome(ID)?.skipReasons[0]).toBe('missing name: refused by the rate limit, not judged');
    expect(run.status(ID).text).toContain('the probe ended early (3 requests in a row were refused (429)');
  });

  it('a row whose answer is not whole: skipped, the others judged', async () => {
    const run = await input(store((_r, i) => (i === 4 ? { status: 400, body: errorBody(400), cut: true } : null)));
    expect(run.status(ID).text).toBe('categoryId beyond int64: no whole response (see contract.transport)');
    expect(run.outcome(ID)?.skipped).toBe(1);
  });
});

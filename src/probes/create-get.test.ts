/**
 * The create-get probe alone, each of its decisions taken by a scripted loopback target
 * (src/testing/probe-harness.ts): each way the create answer is judged or skipped (not whole, refused by the rate
 * limit, not 201, not a Pet, not the Pet sent, an id reused) and each way the get of the animal is.
 */
import { describe, expect, it } from 'vitest';
import {
  animalStore,
  type Answer,
  errorBody,
  figuresKey,
  type Received,
  runProbeAlone,
  type Script,
} from '../testing/probe-harness.js';

const CREATE = 'create.returns-pet' as const;
const GET = 'get.returns-pet' as const;
const key = figuresKey('free', 1, { perMinute: 100, perDay: 1000 });
const createGet = (script: Script) => runProbeAlone({ probe: 'create-get', keys: [key], script });
const isGet = (r: Received) => /^\/pets\/\d+$/.test(r.path);

/** The store, with its answers to the creates (`create`) and to the gets (`get`) changed as the test wants. */
function store(
  create: (a: Answer, i: number) => Answer = (a) => a,
  get: (a: Answer, i: number) => Answer = (a) => a,
): Script {
  const s = animalStore([key]);
  let [creates, gets] = [0, 0];
  return (r) => {
    const a = s(r);
    if (r.method === 'POST') return create(a, creates++);
    return isGet(r) ? get(a, gets++) : a;
  };
}

describe('create-get probe, alone against a scripted target', () => {
  it('both animals created as sent and read back: both held, the omitted status noted', async () => {
    const run = await createGet(store());
    expect(run.status(CREATE)).toEqual({ status: 'pass', text: '' });
    expect(run.status(GET)).toEqual({ status: 'pass', text: '' });
    expect(run.outcome(CREATE)?.info.statusWhenOmitted).toBe('status "available"');
    expect(run.received.map((r) => `${r.method} ${r.path}`)).toEqual([
      'GET /pets?limit=100',
      'POST /pets',
      'POST /pets',
      'GET /pets/1',
      'GET /pets/2',
    ]);
  });

  it('a create answer not whole: both checks skipped for it', async () => {
    const run = await createGet(store((a, i) => (i === 0 ? { ...a, cut: true } : a)));
    expect(run.outcome(CREATE)?.skipReasons).toEqual(['no whole response (see contract.transport)']);
    expect(run.outcome(GET)?.skipReasons[0]).toContain("the animal's id is unknown: the create answer was not judged");
  });

  it('a create refused by the rate limit three times: both checks skipped (and the probe ended by its bounds)', async () => {
    const refused = (a: Answer, i: number): Answer =>
      i < 3 ? { status: 429, headers: { ...a.headers, 'Retry-After': '1' }, body: errorBody(429) } : a;
    const run = await createGet(store(refused));
    expect(run.outcome(CREATE)?.skipReasons[0]).toBe('refused by the rate limit, not judged');
    expect(run.outcome(GET)?.skipReasons[0]).toBe('refused by the rate limit, not judged');
  });

  it('a create answered 200: fails, no animal to read back', async () => {
    const run = await createGet(store((a, i) => (i === 1 ? { ...a, status: 200 } : a)));
    expect(run.status(CREATE).status).toBe('fail');
    expect(run.status(CREATE).text).toMatch(
      /^valid NewPet \{"name":"petload-.*-no-status","categoryId":8\}: expected 201, got 200$/,
    );
    expect(run.outcome(GET)?.skipReasons).toEqual(['no animal was created (see create.returns-pet)']);
  });

  it('a 201 whose body is no Pet: fails, and the animal is read back by the id it gave', async () => {
    const run = await createGet(store((a, i) => (i === 0 ? { ...a, body: { id: 1 } } : a)));
    expect(run.status(CREATE).status).toBe('fail');
    expect(run.status(CREATE).text).toMatch(/^201 body is not a Pet: /);
    expect(run.status(GET)).toEqual({ status: 'pass', text: '' });
  });

  it('a 201 whose body is no Pet and has no id: get skipped, no new id', async () => {
    const run = await createGet(store((a, i) => (i === 0 ? { ...a, body: { created: true } } : a)));
    expect(run.status(CREATE).status).toBe('fail');
    expect(run.outcome(GET)?.skipReasons).toEqual(['no new id in the create answer (see create.returns-pet)']);
  });

  it('a created Pet that does not echo the name, category and status sent: fails naming each', async () => {
    const other = (a: Answer, i: number): Answer =>
      i === 0 ? { ...a, body: { ...(a.body as object), name: 'other', categoryId: 3, status: 'sold' } } : a;
    const run = await createGet(store(other));
    expect(run.status(CREATE).status).toBe('fail');
    expect(run.status(CREATE).text).toMatch(
      /^created Pet does not echo the request: name "other" instead of "petload-.*-with-status"; categoryId 3 instead of 7; status sold instead of pending$/,
    );
  });

  it('the second create reuses the first id: fails, and the get of it skipped', async () => {
    const run = await createGet(store((a, i) => (i === 1 ? { ...a, body: { ...(a.body as object), id: 1 } } : a)));
    expect(run.status(CREATE).text).toBe('created Pet does not echo the request: id 1 is not new');
    expect(run.outcome(GET)?.skipReasons).toEqual(['the create answer reused an id (see create.returns-pet)']);
    expect(run.received.filter(isGet)).toHaveLength(1);
  });

  it('the get of a created animal answered 404: fails', async () => {
    const run = await createGet(
      store(undefined, (a, i) => (i === 0 ? { ...a, status: 404, body: errorBody(404) } : a)),
    );
    expect(run.status(GET)).toEqual({
      status: 'fail',
      text: 'GET of the animal just created (id 1): expected 200, got 404',
    });
  });

  it('the get not whole, or refused by the rate limit three times: skipped', async () => {
    const run = await createGet(
      store(undefined, (a, i) =>
        i === 0
          ? { ...a, cut: true }
          : { status: 429, headers: { ...a.headers, 'Retry-After': '1' }, body: errorBody(429) },
      ),
    );
    expect(run.outcome(GET)?.skipReasons.slice(0, 2)).toEqual([
      'no whole response (see contract.transport)',
      'refused by the rate limit, not judged',
    ]);
  });

  it('the get answers 200 with no Pet: fails', async () => {
    const run = await createGet(store(undefined, (a, i) => (i === 0 ? { ...a, body: [a.body] } : a)));
    expect(run.status(GET).status).toBe('fail');
    expect(run.status(GET).text).toMatch(/^GET \/pets\/1: the 200 body is not a Pet/);
  });

  it('the get answers another animal: fails naming what differs', async () => {
    const run = await createGet(
      store(undefined, (a, i) => (i === 1 ? { ...a, body: { id: 2, name: 'x', categoryId: 8, status: 'sold' } } : a)),
    );
    expect(run.status(GET).text).toBe('GET /pets/2 does not return the animal as created: name "x"; status sold');
  });
});

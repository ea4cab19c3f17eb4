/**
 * The deprecated probe alone, each of its decisions taken by a scripted loopback target
 * (src/testing/probe-harness.ts): the get counted as the list is (or not, or refilled once), the animal to get
 * created when the list is empty, each way the get's answer is skipped or failed, and its Deprecation and Sunset.
 */
import { describe, expect, it } from 'vitest';
import { deprecatedProbe } from './deprecated.js';
import {
  animalStore,
  type Answer,
  errorBody,
  figuresKey,
  type Received,
  runProbeAlone,
  withProbeContext,
  type Script,
} from '../testing/probe-harness.js';

const UNCHANGED = 'deprecation.behaviour-unchanged' as const;
const ANNOUNCED = 'deprecation.announced' as const;
const key = figuresKey('free', 1, { perMinute: 100, perDay: 1000 });
const deprecated = (script: Script) => runProbeAlone({ probe: 'deprecated', keys: [key], script });
const isGet = (r: Received) => /^\/pets\/\d+$/.test(r.path);

/** A store holding one animal, whose answers to the get are `get`'s (given the store's own answer). */
function withGet(get: (a: Answer, r: Received, gets: number) => Answer = (a) => a): Script {
  const store = animalStore([key]);
  store.pets.push({ id: 1, name: 'rex', categoryId: 1, status: 'available' });
  let gets = 0;
  return (r) => {
    const a = store(r);
    return isGet(r) ? get(a, r, ++gets) : a;
  };
}

/** The get answered with Remaining as it was before it: not counted (`times` times; 0: always). */
const uncounted =
  (times = 0) =>
  (a: Answer, _r: Received, gets: number): Answer => {
    if (times > 0 && gets > times) return a;
    const remaining = Number(a.headers!['X-RateLimit-Remaining']) + 1;
    return { ...a, headers: { ...a.headers, 'X-RateLimit-Remaining': String(remaining) } };
  };

describe('deprecated probe, alone against a scripted target', () => {
  it('the get counted as the list, no deprecation headers: both held', async () => {
    const run = await deprecated(withGet());
    expect(run.status(UNCHANGED)).toEqual({ status: 'pass', text: '' });
    expect(run.status(ANNOUNCED)).toEqual({ status: 'pass', text: '' });
    expect(run.outcome(ANNOUNCED)?.info.headers).toBe('neither Deprecation nor Sunset is sent');
    expect(run.received.map((r) => `${r.method} ${r.path}`)).toEqual([
      'GET /pets?limit=1',
      'GET /pets/1',
      'GET /pets?limit=1',
    ]);
  });

  it('an empty list: an animal is created to get', async () => {
    const run = await deprecated(animalStore([key]));
    expect(run.received.map((r) => `${r.method} ${r.path}`)).toEqual([
      'GET /pets?limit=1',
      'POST /pets',
      'GET /pets/1',
      'GET /pets?limit=1',
    ]);
    expect(run.status(UNCHANGED).status).toBe('pass');
  });

  it('an empty list and a create refused: both skipped, no animal id to get', async () => {
    const store = animalStore([key]);
    const run = await deprecated((r) => (r.method === 'POST' ? { status: 400, body: errorBody(400) } : store(r)));
    for (const id of [UNCHANGED, ANNOUNCED]) {
      expect(run.status(id).status).toBe('skip');
      expect(run.status(id).text).toContain('no animal id to get');
    }
  });

  it('the get of an existing animal answered 404: fails', async () => {
    const run = await deprecated(withGet((a) => ({ ...a, status: 404, body: errorBody(404) })));
    expect(run.status(UNCHANGED).status).toBe('fail');
    expect(run.status(UNCHANGED).text).toBe('GET /pets/{id} of an existing animal: expected 200, got 404');
  });

  it('the get not whole: skipped', async () => {
    const run = await deprecated(withGet((a) => ({ ...a, cut: true })));
    expect(run.status(UNCHANGED)).toEqual({ status: 'skip', text: 'no whole response (see contract.transport)' });
  });

  it('the get refused by the rate limit: skipped', async () => {
    const run = await deprecated(withGet((a) => ({ ...a, status: 429, body: errorBody(429) })));
    expect(run.status(UNCHANGED)).toEqual({ status: 'skip', text: 'refused by the rate limit, not judged' });
  });

  it('the get answers 200 with something not a Pet: its body skipped for get.returns-pet, its quota judged', async () => {
    const run = await deprecated(withGet((a) => ({ ...a, body: { id: 'x' } })));
    expect(run.outcome(UNCHANGED)?.skipReasons).toEqual([
      'body not judged: the Pet of GET /pets/{id} is judged (see get.returns-pet)',
    ]);
    expect(run.outcome(UNCHANGED)?.passed).toBeGreaterThan(0);
  });

  it('the get without X-RateLimit-* the lists carry: fails', async () => {
    const run = await deprecated(withGet((a) => ({ ...a, headers: {} })));
    expect(run.status(UNCHANGED).status).toBe('fail');
    expect(run.status(UNCHANGED).text).toBe(
      'the deprecated endpoint answers without x-ratelimit-limit, x-ratelimit-remaining, x-ratelimit-reset, which the list answers around it carry',
    );
  });

  it('no X-RateLimit-* on any answer: quota use skipped, naming headers-present', async () => {
    const store = withGet();
    const run = await deprecated(async (r) => ({ ...(await store(r)), headers: {} }));
    expect(run.status(UNCHANGED).text).toContain('quota use not judged: the list answers lack');
    expect(run.status(UNCHANGED).text).toContain('ratelimit.headers-present');
  });

  it('the window changed between the answers: quota use skipped', async () => {
    const run = await deprecated(
      withGet((a) => {
        const reset = Number(a.headers!['X-RateLimit-Reset']) + 60;
        return { ...a, headers: { ...a.headers, 'X-RateLimit-Reset': String(reset) } };
      }),
    );
    expect(run.status(UNCHANGED).text).toBe('quota use not judged: the window changed during the sequence');
  });

  it('the get never counted: measured three times, fails', async () => {
    const run = await deprecated(withGet(uncounted()));
    expect(run.status(UNCHANGED).status).toBe('fail');
    expect(run.status(UNCHANGED).text).toMatch(
      /^Remaining went (\d+) → \1 \(get\) → \d+: the deprecated endpoint does not count against the same quota/,
    );
    expect(run.received.filter(isGet)).toHaveLength(3);
  });

  it('a get given back once (a refill): measured again, held', async () => {
    const run = await deprecated(withGet(uncounted(1)));
    expect(run.status(UNCHANGED)).toEqual({ status: 'pass', text: '' });
    expect(run.received.filter(isGet)).toHaveLength(2);
  });

  it('Deprecation as an RFC 9745 date and Sunset on 5 Dec 2030: announced well', async () => {
    const headers = { Deprecation: '@1767225600', Sunset: 'Thu, 05 Dec 2030 00:00:00 GMT' };
    const run = await deprecated(withGet((a) => ({ ...a, headers: { ...a.headers, ...headers } })));
    expect(run.status(ANNOUNCED)).toEqual({ status: 'pass', text: '' });
  });

  it('a Deprecation that is not @<seconds>: fails', async () => {
    const run = await deprecated(withGet((a) => ({ ...a, headers: { ...a.headers, Deprecation: 'true' } })));
    expect(run.status(ANNOUNCED)).toEqual({
      status: 'fail',
      text: 'Deprecation "true" is not an RFC 9745 date (@<seconds>)',
    });
  });

  it('a Sunset on another day, and before the Deprecation: fails with both', async () => {
    const headers = { Deprecation: '@1956528000', Sunset: 'Wed, 04 Dec 2030 00:00:00 GMT' };
    const run = await deprecated(withGet((a) => ({ ...a, headers: { ...a.headers, ...headers } })));
    expect(run.status(ANNOUNCED).status).toBe('fail');
    expect(run.status(ANNOUNCED).text).toBe(
      'Sunset Wed, 04 Dec 2030 00:00:00 GMT is not 5 Dec 2030 (the announced removal date); Sunset is before Deprecation',
    );
  });

  it('a Sunset that is no HTTP-date: fails', async () => {
    const run = await deprecated(withGet((a) => ({ ...a, headers: { ...a.headers, Sunset: 'soon' } })));
    expect(run.status(ANNOUNCED)).toEqual({ status: 'fail', text: 'Sunset "soon" is not an HTTP-date' });
  });

  it("Remaining fell more than the key's requests, by no more than other probes sent: skipped", async () => {
    // The get costs two; the runner's reading of other probes' requests (ProbeContext.othersMark) is five.
    const store = animalStore([key]);
    store.pets.push({ id: 1, name: 'rex', categoryId: 1, status: 'available' });
    const script: Script = (r) => {
      const w = store.windows.get(key.secret);
      if (isGet(r) && w) w.used++;
      return store(r);
    };
    const run = await withProbeContext({ keys: [key], script }, (ctx) =>
      deprecatedProbe.run({ ...ctx, othersMark: () => () => 5 }, 'free'),
    );
    expect(run.status(UNCHANGED).text).toBe(
      "quota use not judged: Remaining fell 1 more than this key's requests while other probes sent 5 (see ratelimit.key-isolation)",
    );
  });
});

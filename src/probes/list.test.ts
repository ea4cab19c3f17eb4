/**
 * The list probe alone against a scripted loopback target (src/testing/probe-harness.ts): it has no decision of its
 * own; it sends its table of list queries, and the passive list.* checks judge the answers. A store that keeps the
 * interface holds them; one that ignores limit fails list.limit-respected.
 */
import { describe, expect, it } from 'vitest';
import { animalStore, errorBody, figuresKey, runProbeAlone, type Script } from '../testing/probe-harness.js';

const key = figuresKey('free', 1, { perMinute: 100, perDay: 1000 });
const list = (script: Script) => runProbeAlone({ probe: 'list', keys: [key], script });

/** The store with three animals, refusing a limit or status outside the interface with 400. */
function store(): Script {
  const s = animalStore([key]);
  for (const [i, status] of ['available', 'pending', 'sold'].entries())
    s.pets.push({ id: i + 1, name: `pet${i}`, categoryId: 1, status });
  return (r) => {
    const q = new URLSearchParams(r.path.split('?')[1] ?? '');
    const limit = q.get('limit');
    const status = q.get('status');
    const badLimit = limit !== null && !(/^\d+$/.test(limit) && Number(limit) >= 1 && Number(limit) <= 100);
    const badStatus = status !== null && !['available', 'pending', 'sold'].includes(status);
    return badLimit || badStatus ? { status: 400, body: errorBody(400) } : s(r);
  };
}

describe('list probe, alone against a scripted target', () => {
  it('its table of sixteen queries, each judged by the list.* checks: a store keeping the interface holds them', async () => {
    const run = await list(store());
    expect(run.received).toHaveLength(16);
    for (const id of [
      'list.schema',
      'list.limit-respected',
      'list.status-filter',
      'list.limit-out-of-range',
      'list.invalid-status',
    ] as const)
      expect(run.status(id).status, id).toBe('pass');
  });

  it('a store that ignores limit: list.limit-respected fails', async () => {
    const s = store();
    const run = await list((r) => s({ ...r, path: r.path.replace(/limit=\d+&?/, '') }));
    expect(run.status('list.limit-respected').status).toBe('fail');
  });
});

import { describe, expect, it } from 'vitest';
import { NewPet, PET_STATUSES } from '../api/schemas.js';
import type { ApiKey } from '../core/api-key.js';
import { scopeOf } from '../checks/passive/request.js';
import { buildExchange, jsonBody } from '../testing/exchange-builder.js';
import { testKey } from '../testing/exchange-builder.js';
import { Traffic } from './traffic.js';

const key: ApiKey = testKey('pro', 1, '0001');

/** A small deterministic generator (a linear congruential one), so that the shares below are exact for a seed. */
function seeded(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1_664_525) + 1_013_904_223) >>> 0;
    return s / 2 ** 32;
  };
}

const N = 20_000;

describe('Traffic', () => {
  it('follows the mix weights, and never picks an operation of weight 0', () => {
    const t = new Traffic({ listPets: 6, createPet: 3, getPet: 1 }, 0.1, seeded(1));
    const counts = { listPets: 0, createPet: 0, getPet: 0 };
    for (let i = 0; i < N; i++) counts[t.shape().operation]++;
    expect(counts.listPets / N).toBeCloseTo(0.6, 1);
    expect(counts.createPet / N).toBeCloseTo(0.3, 1);
    expect(counts.getPet / N).toBeCloseTo(0.1, 1);
    const onlyList = new Traffic({ listPets: 1, createPet: 0, getPet: 0 }, 0.1, seeded(2));
    expect(Array.from({ length: 1000 }, () => onlyList.shape().operation).every((op) => op === 'listPets')).toBe(true);
  });

  it('sends requests within the interface: limits 1..100 (all of them), a valid status or none, valid bodies', () => {
    const t = new Traffic({ listPets: 1, createPet: 1, getPet: 0 }, 0.1, seeded(3));
    const limits = new Set<number>();
    const statuses = new Set<string | undefined>();
    for (let i = 0; i < N; i++) {
      const spec = t.spec(key, 'test');
      expect(spec.auth).toEqual({ kind: 'key', key });
      const ex = buildExchange({ operation: spec.operation, method: spec.method, path: spec.path });
      expect(scopeOf(ex).outside).toBe(false);
      if (spec.operation === 'listPets') {
        const q = new URLSearchParams(spec.path.slice(spec.path.indexOf('?') + 1));
        limits.add(Number(q.get('limit')));
        statuses.add(q.get('status') ?? undefined);
      } else {
        expect(spec.method).toBe('POST');
        expect(NewPet.safeParse(JSON.parse(spec.body!)).success).toBe(true);
      }
    }
    expect([...limits].sort((a, b) => a - b)).toEqual(Array.from({ length: 100 }, (_, i) => i + 1));
    expect(statuses).toEqual(new Set([undefined, ...PET_STATUSES]));
  });

  it('gets ids the run created, and a share of ids never created', () => {
    const t = new Traffic({ listPets: 0, createPet: 0, getPet: 1 }, 0.25, seeded(4));
    const unknown = (path: string) => Number(path.slice('/pets/'.length)) > 2 ** 52;
    // Nothing created yet: every get asks for an unknown id (a safe integer near 2^53).
    expect(Array.from({ length: 100 }, () => t.shape().path).every(unknown)).toBe(true);
    for (const id of [17, 18n])
      t.learn(
        buildExchange({
          operation: 'createPet',
          method: 'POST',
          status: 201,
          body: jsonBody({ id, name: 'a', categoryId: 1 }),
        }),
      );
    // A refused create teaches nothing.
    t.learn(
      buildExchange({
        operation: 'createPet',
        method: 'POST',
        status: 429,
        body: jsonBody({ id: 99, code: 'x', message: 'y', status: 429 }),
      }),
    );
    const paths = Array.from({ length: N }, () => t.shape().path);
    const share = paths.filter(unknown).length / N;
    expect(share).toBeCloseTo(0.25, 1);
    expect(new Set(paths.filter((p) => !unknown(p)))).toEqual(new Set(['/pets/17', '/pets/18']));
    expect(paths.filter(unknown).every((p) => Number.isSafeInteger(Number(p.slice(6))))).toBe(true);
  });
});

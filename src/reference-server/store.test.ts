import { describe, expect, it } from 'vitest';
import { Pet, Pets } from '../api/schemas.js';
import { MAX_PETS, PetStore, SEED_PETS, petJson } from './store.js';

describe('PetStore', () => {
  it('seeds animals of every status and some without one, enough for ignore-limit', () => {
    const s = new PetStore(1);
    expect(s.size).toBe(SEED_PETS);
    expect(SEED_PETS).toBeGreaterThanOrEqual(150);
    const all = s.list(SEED_PETS, undefined);
    expect(new Set(all.map((p) => p.status))).toEqual(new Set(['available', 'pending', 'sold', undefined]));
    expect(Pets.parse(JSON.parse(`[${all.map((p) => petJson(p, false)).join(',')}]`))).toHaveLength(SEED_PETS);
  });

  it('is deterministic for a seed', () => {
    expect(new PetStore(7).list(50, undefined)).toEqual(new PetStore(7).list(50, undefined));
  });

  it('lists newest first, filtered, at most limit', () => {
    const s = new PetStore(1);
    const created = s.create({ name: 'New', categoryId: 1, status: 'sold' });
    expect(s.list(1, undefined)).toEqual([created]);
    const sold = s.list(100, 'sold');
    expect(sold.length).toBeLessThanOrEqual(100);
    expect(sold.every((p) => p.status === 'sold')).toBe(true);
    expect(sold.map((p) => p.id)).toEqual([...sold.map((p) => p.id)].sort((a, b) => b - a));
  });

  it('assigns increasing safe-integer ids and bumps its version', () => {
    const s = new PetStore(1);
    const v = s.version;
    const a = s.create({ name: 'a', categoryId: 1 });
    const b = s.create({ name: 'b', categoryId: 1 });
    expect(b.id).toBeGreaterThan(a.id);
    expect(Number.isSafeInteger(b.id)).toBe(true);
    expect(s.version).toBe(v + 2);
  });

  it('drops the oldest animals beyond MAX_PETS', () => {
    const s = new PetStore(1, 0);
    let last = s.create({ name: 'first', categoryId: 1 });
    for (let i = 0; i < MAX_PETS + 2000; i++) last = s.create({ name: 'n', categoryId: 1 });
    expect(s.size).toBeLessThanOrEqual(MAX_PETS + 1024);
    expect(s.get(1)).toBeUndefined();
    expect(s.get(last.id)).toBe(last);
  });
});

describe('petJson', () => {
  it('writes bigint categoryIds exactly and names as JSON strings', () => {
    const text = petJson(
      { id: 3, name: 'a "quoted" \u2028 name', categoryId: 9223372036854775807n, status: 'pending' },
      false,
    );
    expect(text).toBe(
      '{"id":3,"name":"a \\"quoted\\" \u2028 name","categoryId":9223372036854775807,"status":"pending"}',
    );
    expect(Pet.safeParse(JSON.parse(petJson({ id: 1, name: 'x', categoryId: 2 }, false))).success).toBe(true);
  });

  it('writes categoryId as a string under schema-drift', () => {
    expect(JSON.parse(petJson({ id: 1, name: 'x', categoryId: 2 }, true))).toEqual({
      id: 1,
      name: 'x',
      categoryId: '2',
    });
  });
});

/**
 * The reference server's animals, in memory. Ids are safe integers assigned in increasing order; lists are
 * newest first, so an animal just created shows in the next list. The store keeps at most MAX_PETS animals,
 * dropping the oldest, so a long load test cannot exhaust memory.
 */
import { PET_STATUSES, type NewPet, type PetStatus } from '../api/schemas.js';
import { createPrng } from './prng.js';

export type StoredPet = NewPet & { readonly id: number };

export const SEED_PETS = 200;
export const MAX_PETS = 100_000;
const EVICT_BATCH = 1024;

const NAMES = ['Rex', 'Luna', 'Milo', 'Bella', 'Oscar', 'Nala', 'Simba', 'Kiwi', 'Pepper', 'Ziggy', 'Coco', 'Biscuit'];

/** A Pet as JSON. `categoryIdAsString` is the `schema-drift` fault. bigint categoryIds (beyond 2^53) stay exact. */
export function petJson(p: StoredPet, categoryIdAsString: boolean): string {
  const cat = categoryIdAsString ? `"${p.categoryId}"` : `${p.categoryId}`;
  const status = p.status === undefined ? '' : `,"status":"${p.status}"`;
  return `{"id":${p.id},"name":${JSON.stringify(p.name)},"categoryId":${cat}${status}}`;
}

export class PetStore {
  /** Ascending ids. */
  private pets: StoredPet[] = [];
  private readonly byId = new Map<number, StoredPet>();
  private nextId = 1;
  /** Bumped on every change, for caches of serialised lists. */
  version = 0;

  /** Seeds `count` animals: every status, and every fourth without one. */
  constructor(seed: number, count = SEED_PETS) {
    const random = createPrng(seed);
    for (let i = 0; i < count; i++) {
      const status = i % 4 === 3 ? undefined : PET_STATUSES[i % 4];
      this.create({
        name: `${NAMES[i % NAMES.length]} ${i + 1}`,
        categoryId: 1 + Math.floor(random() * 12),
        ...(status === undefined ? {} : { status }),
      });
    }
  }

  create(input: NewPet): StoredPet {
    const pet: StoredPet = { id: this.nextId++, ...input };
    this.pets.push(pet);
    this.byId.set(pet.id, pet);
    if (this.pets.length > MAX_PETS + EVICT_BATCH) {
      const dropped = this.pets.slice(0, this.pets.length - MAX_PETS);
      for (const p of dropped) this.byId.delete(p.id);
      this.pets = this.pets.slice(dropped.length);
    }
    this.version++;
    return pet;
  }

  get(id: number): StoredPet | undefined {
    return this.byId.get(id);
  }

  /** Newest first: at most `limit` animals, only those with `status` when given. */
  list(limit: number, status: PetStatus | undefined): StoredPet[] {
    const out: StoredPet[] = [];
    for (let i = this.pets.length - 1; i >= 0 && out.length < limit; i--) {
      const p = this.pets[i]!;
      if (status === undefined || p.status === status) out.push(p);
    }
    return out;
  }

  get size(): number {
    return this.pets.length;
  }
}

/**
 * The animals of a store in Redis, for stores whose processes share them (a fleet, node:cluster workers): a list
 * of every pet in order and a hash by id, each pet as pet-api's lossless encoding; ids from one counter.
 */
import type { Redis } from 'ioredis';
import { decodePet, encodePet, type Pet, type PetStorage } from './pet-api.js';

export class RedisPets implements PetStorage {
  constructor(private readonly redis: Redis) {}

  async add(pet: Omit<Pet, 'id'>): Promise<Pet> {
    const p = { id: BigInt(await this.redis.incr('pets:next-id')), ...pet };
    await this.redis.multi().rpush('pets:all', encodePet(p)).hset('pets:by-id', p.id.toString(), encodePet(p)).exec();
    return p;
  }

  async all(): Promise<Pet[]> {
    return (await this.redis.lrange('pets:all', 0, -1)).map(decodePet);
  }

  async byId(id: bigint): Promise<Pet | undefined> {
    const text = await this.redis.hget('pets:by-id', id.toString());
    return text === null ? undefined : decodePet(text);
  }
}

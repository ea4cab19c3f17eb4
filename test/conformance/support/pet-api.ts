/**
 * The pet part of the corpus's stores: bearer keys, GET/POST /pets, the deprecated GET /pets/{id}, Error bodies.
 * Written from the interface alone (it is not petload's reference server), framework-free: each store feeds it
 * a request and sends what it returns, with the headers of whatever rate limiter that store is built on.
 */
import { readFileSync } from 'node:fs';
import { isInteger, LosslessNumber, parse, stringify } from 'lossless-json';

export interface StoreKey {
  key: string;
  plan: string;
  perMinute: number;
  perDay: number;
}

/** Published plans (requests per minute, per day). */
const PLANS: Record<string, { perMinute: number; perDay: number }> = {
  free: { perMinute: 60, perDay: 1000 },
  pro: { perMinute: 300, perDay: 10_000 },
  business: { perMinute: 1000, perDay: 100_000 },
};

/** The keys of a keys file (`{"keys":[{"key","plan",perMinute?,perDay?}]}`), named by env STORE_KEYS_FILE. */
export function loadStoreKeys(path = process.env.STORE_KEYS_FILE): Map<string, StoreKey> {
  if (!path) throw new Error('STORE_KEYS_FILE is not set');
  const doc = JSON.parse(readFileSync(path, 'utf8')) as {
    keys: { key: string; plan: string; perMinute?: number; perDay?: number }[];
  };
  const keys = new Map<string, StoreKey>();
  for (const k of doc.keys) {
    const plan = PLANS[k.plan];
    keys.set(k.key, {
      key: k.key,
      plan: k.plan,
      perMinute: k.perMinute ?? plan?.perMinute ?? 0,
      perDay: k.perDay ?? plan?.perDay ?? 0,
    });
  }
  return keys;
}

/** The valid key of an Authorization header, or null. */
export function authenticate(keys: ReadonlyMap<string, StoreKey>, header: string | undefined): StoreKey | null {
  const m = /^Bearer +(\S+)$/i.exec(header?.trim() ?? '');
  return m ? (keys.get(m[1]!) ?? null) : null;
}

export interface ApiReply {
  status: number;
  headers: Record<string, string>;
  /** Serialised JSON. */
  body: string;
}

const JSON_TYPE = { 'Content-Type': 'application/json; charset=utf-8' };

export function errorReply(
  status: number,
  code: string,
  message: string,
  headers: Record<string, string> = {},
): ApiReply {
  return { status, headers: { ...JSON_TYPE, ...headers }, body: JSON.stringify({ code, message, status }) };
}

export const unauthorized = (): ApiReply =>
  errorReply(401, 'unauthorized', 'missing or invalid API key', { 'WWW-Authenticate': 'Bearer realm="animal-store"' });

export const tooManyRequests = (retryAfterS: number): ApiReply =>
  errorReply(429, 'rate_limited', `rate limit exceeded; retry in ${retryAfterS} s`, {
    'Retry-After': String(retryAfterS),
  });

const INT64_MAX = 9223372036854775807n;
const STATUSES = ['available', 'pending', 'sold'];
/** 2024-01-01T00:00:00Z, RFC 9745 structured date. */
const DEPRECATED = {
  Deprecation: '@1704067200',
  Sunset: 'Thu, 05 Dec 2030 00:00:00 GMT',
  Link: '</v1/pets?status=available>; rel="successor-version"',
};

export interface Pet {
  id: bigint;
  name: string;
  categoryId: bigint;
  status?: string;
}

/** Where the animals live: this process's memory, or a database the store's processes share. */
export interface PetStorage {
  add(pet: Omit<Pet, 'id'>): Promise<Pet>;
  /** Every animal, oldest first. */
  all(): Promise<Pet[]>;
  byId(id: bigint): Promise<Pet | undefined>;
}

export class MemoryPets implements PetStorage {
  private readonly pets: Pet[] = [];
  private nextId = 1n;
  async add(pet: Omit<Pet, 'id'>): Promise<Pet> {
    const p = { id: this.nextId++, ...pet };
    this.pets.push(p);
    return p;
  }
  async all(): Promise<Pet[]> {
    return this.pets;
  }
  async byId(id: bigint): Promise<Pet | undefined> {
    return this.pets.find((p) => p.id === id);
  }
}

/** A pet as one JSON string (ids as decimal strings), for a shared database. */
export const encodePet = (p: Pet): string =>
  JSON.stringify({ ...p, id: p.id.toString(), categoryId: p.categoryId.toString() });
export function decodePet(text: string): Pet {
  const o = JSON.parse(text) as { id: string; name: string; categoryId: string; status?: string };
  return { ...o, id: BigInt(o.id), categoryId: BigInt(o.categoryId) };
}

const petJson = (p: Pet) => ({
  id: new LosslessNumber(p.id.toString()),
  name: p.name,
  categoryId: new LosslessNumber(p.categoryId.toString()),
  ...(p.status === undefined ? {} : { status: p.status }),
});

const ok = (status: number, value: unknown, headers: Record<string, string> = {}): ApiReply => ({
  status,
  headers: { ...JSON_TYPE, ...headers },
  body: stringify(value) ?? 'null',
});

/** An int64 from a lossless JSON number, or null. */
function int64Of(v: unknown): bigint | null {
  if (!(v instanceof LosslessNumber) || !isInteger(v.value)) return null;
  const n = BigInt(v.value);
  return n >= -INT64_MAX - 1n && n <= INT64_MAX ? n : null;
}

/** The three operations over a storage. */
export class PetApi {
  constructor(private readonly pets: PetStorage = new MemoryPets()) {}

  /** `path` is what follows `/v1`; the caller has authenticated the request. */
  handle(method: string, path: string, query: URLSearchParams, body: string): Promise<ApiReply> {
    if (path === '/pets' && method === 'GET') return this.list(query);
    if (path === '/pets' && method === 'POST') return this.create(body);
    const m = /^\/pets\/([^/]+)$/.exec(path);
    if (m && method === 'GET') return this.get(decodeURIComponent(m[1]!));
    return Promise.resolve(errorReply(404, 'not_found', `no route ${method} ${path}`));
  }

  private async list(query: URLSearchParams): Promise<ApiReply> {
    const limitText = query.get('limit');
    let limit = 20;
    if (limitText !== null) {
      if (!/^\d+$/.test(limitText) || Number(limitText) < 1 || Number(limitText) > 100)
        return errorReply(400, 'invalid_limit', 'limit must be an integer from 1 to 100');
      limit = Number(limitText);
    }
    const status = query.get('status');
    if (status !== null && !STATUSES.includes(status))
      return errorReply(400, 'invalid_status', `status must be one of ${STATUSES.join(', ')}`);
    const found: unknown[] = [];
    const pets = await this.pets.all();
    for (let i = pets.length - 1; i >= 0 && found.length < limit; i--) {
      const p = pets[i]!;
      if (status === null || p.status === status) found.push(petJson(p));
    }
    return ok(200, found);
  }

  private async create(text: string): Promise<ApiReply> {
    let doc: unknown;
    try {
      doc = parse(text);
    } catch {
      return errorReply(400, 'invalid_json', 'the body is not JSON');
    }
    if (typeof doc !== 'object' || doc === null || Array.isArray(doc))
      return errorReply(400, 'invalid_body', 'the body must be a NewPet object');
    const { name, categoryId, status } = doc as Record<string, unknown>;
    if (typeof name !== 'string' || name.length === 0)
      return errorReply(400, 'invalid_name', 'name is a required non-empty string');
    const category = int64Of(categoryId);
    if (category === null) return errorReply(400, 'invalid_category', 'categoryId is a required int64');
    if (status !== undefined && (typeof status !== 'string' || !STATUSES.includes(status)))
      return errorReply(400, 'invalid_status', `status must be one of ${STATUSES.join(', ')}`);
    const pet = await this.pets.add({ name, categoryId: category, ...(status === undefined ? {} : { status }) });
    return ok(201, petJson(pet));
  }

  private async get(idText: string): Promise<ApiReply> {
    if (!/^\d+$/.test(idText) || BigInt(idText) > INT64_MAX)
      return errorReply(400, 'invalid_id', 'petId must be an int64', DEPRECATED);
    const id = BigInt(idText);
    const pet = await this.pets.byId(id);
    if (!pet) return errorReply(404, 'not_found', `no animal ${idText}`, DEPRECATED);
    return ok(200, petJson(pet), DEPRECATED);
  }
}

/** The path after `/v1`, or null when the request is not under /v1. */
export function apiPath(pathname: string): string | null {
  return pathname.startsWith('/v1/') ? pathname.slice(3) : null;
}

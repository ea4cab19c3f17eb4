/**
 * The reference server's request handling on bare node:http: authenticate, ban, rate-limit, route, answer.
 * The decision from authentication to counting runs synchronously in one tick, so the counter is atomic
 * (only the `non-atomic-counter` fault puts an await in it). The hot path avoids allocation where it can:
 * list bodies are cached per (limit, status) until the next create, header names are constants and the
 * Date string is formatted once per second.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { PET_STATUSES, type NewPet } from '../api/schemas.js';
import { PLANS } from '../api/plans.js';
import type { ApiKey } from '../core/api-key.js';
import type { Clock } from '../core/clock.js';
import { KeyRing, parseAuthorization, type Credential } from './auth.js';
import { BanGuard, type BanPolicy } from './ban.js';
import { MAX_BODY_BYTES, parseJson, parseNewPet, readBody, type BodyOutcome } from './body.js';
import { FAULT_NAMES, type FaultName } from './faults.js';
import { AddressLimiter, type MinuteLimiter, Quota, type WindowReport, type WindowView } from './limiter.js';
import { createPrng } from './prng.js';
import { parseListQuery } from './query.js';
import {
  CHALLENGE_INVALID,
  CHALLENGE_MISSING,
  DEPRECATION_HEADERS,
  HttpDate,
  WWW_AUTHENTICATE,
  errorJson,
} from './respond.js';
import { PetStore, petJson } from './store.js';

export interface AppConfig {
  readonly keys: readonly ApiKey[];
  readonly clock: Clock;
  readonly faults: ReadonlySet<FaultName>;
  readonly windowReport: WindowReport;
  /** How the minute figure is kept (default: a fixed window from the subject's first request). */
  readonly minuteLimiter?: MinuteLimiter;
  /**
   * Instances answering over the one limiter (default 1): each answer comes from the next instance in turn, whose
   * clock is offset (together a second apart) for its Date and Reset, and answers complete in a shuffled order.
   */
  readonly instances?: number;
  /** Whether 4xx answers to a valid key (other than 401 and 429) consume its quota. */
  readonly countErrors: boolean;
  readonly ban: BanPolicy;
  /** Delay of the `slow` fault, real ms. */
  readonly slowMs: number;
  readonly seed: number;
}

/** An answer before the Date and rate-limit headers are added. */
interface Answer {
  readonly status: number;
  readonly body: string | Buffer;
  /** Extra headers, flat: name, value, name, value… */
  readonly headers: readonly string[];
  /** Close the connection afterwards (a request body was left unread). */
  readonly close?: boolean;
  /** Leave out the rate-limit headers (the `orders-no-limit` fault: an endpoint outside the limiter). */
  readonly unlimited?: boolean;
}

interface KeyState {
  readonly quota: Quota;
  readonly ban: BanGuard;
  /** Under `per-instance`: the second replica's counter, answering every other request (`turn`). */
  readonly other?: Quota;
  turn?: number;
}

const BASE = '/v1';
const PETS = `${BASE}/pets`;
const PET_PREFIX = `${PETS}/`;
const NONE: readonly string[] = [];
const PET_ID = /^[1-9]\d{0,15}$/;
const ORDERS = `${BASE}/store/orders`;
/**
 * The answer of `GET /v1/store/orders`: the interface names the endpoint and shows nothing of it, so its payload is
 * petload's own design (docs/reference-server.md): a bare array of a few fixed orders, each an id, the animal's id,
 * a quantity and a status. The suite never judges it.
 */
const ORDERS_BODY = Buffer.from(
  JSON.stringify([
    { id: 1, petId: 1, quantity: 1, status: 'placed' },
    { id: 2, petId: 2, quantity: 2, status: 'approved' },
    { id: 3, petId: 3, quantity: 1, status: 'delivered' },
  ]),
);
/** How many animals `ignore-limit` returns, whatever limit says. */
const IGNORED_LIMIT = 150;
/** The await `non-atomic-counter` puts between reading and writing the counter, real ms. */
const NON_ATOMIC_GAP_MS = 20;
/** How far apart the clocks of a fleet's first and last instances are, ms. */
const INSTANCE_SPREAD_MS = 1000;
/** The most real ms a fleet's answer waits before it goes out (completion order shuffled). */
const INSTANCE_JITTER_MS = 5;
/** Shares of requests the `flaky` fault resets, and answers with truncated JSON. */
const FLAKY_RESET = 0.1;
const FLAKY_TRUNCATE = 0.1;

export class ReferenceApp {
  private readonly clock: Clock;
  private readonly report: WindowReport;
  private readonly countErrors: boolean;
  private readonly fault: Readonly<Record<FaultName, boolean>>;
  private readonly ring: KeyRing;
  private readonly keyStates = new Map<ApiKey, KeyState>();
  /** The identity of every unknown bearer token under `auth-bypass`. */
  private readonly bypass: KeyState | undefined;
  private readonly addresses: AddressLimiter;
  private readonly store: PetStore;
  private readonly random: () => number;
  private readonly date = new HttpDate();
  private listCache = new Map<string, Buffer>();
  private listCacheVersion = -1;
  private readonly missingKey: Answer;
  private readonly invalidKey: Answer;
  private readonly slowMs: number;
  private readonly instances: number;
  private turn = 0;

  constructor(config: AppConfig) {
    this.clock = config.clock;
    this.report = config.windowReport;
    this.countErrors = config.countErrors;
    this.slowMs = config.slowMs;
    this.instances = config.instances ?? 1;
    this.fault = Object.fromEntries(FAULT_NAMES.map((n) => [n, config.faults.has(n)])) as Record<FaultName, boolean>;
    this.ring = new KeyRing(config.keys);
    const minute = config.minuteLimiter ?? 'fixed-window';
    this.addresses = new AddressLimiter(PLANS.free, minute);
    const limitsOf = (k: ApiKey) => (this.fault['wrong-plan-limit'] ? PLANS.business : k.limits);
    const shared = this.fault['shared-quota'] ? new Quota(PLANS.free) : undefined;
    for (const k of config.keys) {
      const quota = shared ? shared.sharedWith(limitsOf(k)) : Quota.of(limitsOf(k), minute);
      const other = this.fault['per-instance'] ? Quota.of(limitsOf(k), minute) : undefined;
      this.keyStates.set(k, { quota, ban: new BanGuard(config.ban), ...(other ? { other, turn: 0 } : {}) });
    }
    this.bypass = this.fault['auth-bypass']
      ? {
          quota: new Quota(this.fault['wrong-plan-limit'] ? PLANS.business : PLANS.free),
          ban: new BanGuard(config.ban),
        }
      : undefined;
    this.store = new PetStore(config.seed);
    this.random = createPrng(config.seed);
    this.missingKey = this.error(401, 'missing_key', 'an API key is required: Authorization: Bearer <API_KEY>', [
      WWW_AUTHENTICATE,
      CHALLENGE_MISSING,
    ]);
    this.invalidKey = this.error(
      401,
      'invalid_key',
      'the API key is not valid (send Authorization: Bearer <API_KEY>)',
      [WWW_AUTHENTICATE, CHALLENGE_INVALID],
    );
  }

  /** The `request` listener. Never throws. */
  readonly handle = (req: IncomingMessage, res: ServerResponse): void => {
    let truncate = false;
    if (this.fault.flaky) {
      const r = this.random();
      if (r < FLAKY_RESET) {
        req.socket.destroy();
        return;
      }
      truncate = r < FLAKY_RESET + FLAKY_TRUNCATE;
    }
    if (req.method === 'POST') {
      readBody(req).then(
        (body) => {
          if (body.kind !== 'aborted') this.dispatch(req, res, body, truncate);
        },
        (e: unknown) => this.internalError(res, e),
      );
    } else {
      this.dispatch(req, res, undefined, truncate);
    }
  };

  /** The `clientError` listener: requests node cannot parse get a 400 Error, never a crash. */
  readonly clientError = (err: NodeJS.ErrnoException, socket: Duplex): void => {
    if (err.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    const now = this.clock.now();
    const message = err.code === 'HPE_HEADER_OVERFLOW' ? 'the request headers are too large' : 'malformed HTTP request';
    const answer = this.error(400, 'bad_request', message, NONE);
    const view = this.addresses.quota((socket as Socket).remoteAddress ?? 'unknown', now).view(this.report);
    const headers = this.headersFor(answer, view, now, Buffer.byteLength(answer.body));
    let head = 'HTTP/1.1 400 Bad Request\r\nConnection: close\r\n';
    for (let i = 0; i < headers.length; i += 2) head += `${headers[i]}: ${headers[i + 1]}\r\n`;
    socket.end(`${head}\r\n${answer.body as string}`);
  };

  /** Drops idle per-address state. */
  sweep(): void {
    this.addresses.sweep(this.clock.now());
  }

  stats(): { pets: number; addresses: number } {
    return { pets: this.store.size, addresses: this.addresses.size };
  }

  private dispatch(req: IncomingMessage, res: ServerResponse, body: BodyOutcome | undefined, truncate: boolean): void {
    try {
      const now = this.clock.now();
      const cred = parseAuthorization(req.headers.authorization);
      const state = this.identify(cred);
      if (state === undefined) {
        this.unauthenticated(req, res, cred, now, truncate);
        return;
      }
      const bannedUntil = state.ban.check(now, performance.now());
      if (bannedUntil !== 0) {
        const resetMs = Math.ceil(bannedUntil / 1000) * 1000;
        // A ban is reported as "nothing left until the ban ends"; only a day-length window can say that.
        const view: WindowView = { window: 'day', limit: state.quota.limits.perDay, remaining: 0, resetMs };
        this.finish(res, this.refusal('key_banned', bannedUntil, now), view, now, truncate);
        return;
      }
      const quota = replica(state);
      if (this.fault['orders-no-limit'] && isOrders(req)) {
        this.finish(res, { ...this.route(req, body), unlimited: true }, quota.view(this.report), now, truncate);
        return;
      }
      quota.roll(now);
      const until = this.fault['limit-not-enforced'] ? 0 : quota.refusedUntil(this.fault['day-not-enforced']);
      if (until !== 0) {
        state.ban.refused(until, now, performance.now());
        this.finish(res, this.refusal('rate_limited', until, now), quota.view(this.report, until), now, truncate);
        return;
      }
      const answer = this.route(req, body);
      if (answer.status < 400 || this.countErrors) {
        if (this.fault['non-atomic-counter']) {
          const read = quota.snapshot();
          setTimeout(() => {
            quota.consumeFrom(read);
            this.finish(res, answer, quota.view(this.report), now, truncate);
          }, NON_ATOMIC_GAP_MS);
          return;
        }
        quota.consume(now);
      }
      this.finish(res, answer, quota.view(this.report), now, truncate);
    } catch (e) {
      this.internalError(res, e);
    }
  }

  private identify(cred: Credential): KeyState | undefined {
    if (cred.kind !== 'bearer') return undefined;
    const key = this.ring.find(cred.token);
    if (key !== undefined) return this.keyStates.get(key);
    return cred.token === '' ? undefined : this.bypass;
  }

  /** Requests without a valid key: limited per client address with the Free figures, never touching a key's quota. */
  private unauthenticated(
    req: IncomingMessage,
    res: ServerResponse,
    cred: Credential,
    now: number,
    truncate: boolean,
  ): void {
    const quota = this.addresses.quota(req.socket.remoteAddress ?? 'unknown', now);
    const until = this.fault['limit-not-enforced'] ? 0 : quota.refusedUntil();
    if (until !== 0) {
      this.finish(res, this.refusal('rate_limited', until, now), quota.view(this.report, until), now, truncate);
      return;
    }
    quota.consume(now);
    if (this.fault['invalid-keys-drain'] && cred.kind === 'bearer') {
      for (const s of this.keyStates.values()) {
        s.quota.roll(now);
        s.quota.consume(now);
      }
    }
    const refused = cred.kind === 'none' ? this.missingKey : this.invalidKey;
    const answer = this.fault['orders-no-auth'] && isOrders(req) ? this.route(req, undefined) : refused;
    this.finish(res, answer, quota.view(this.report), now, truncate);
  }

  private route(req: IncomingMessage, body: BodyOutcome | undefined): Answer {
    const url = req.url ?? '';
    const q = url.indexOf('?');
    const path = q < 0 ? url : url.slice(0, q);
    const method = req.method;
    if (path === PETS) {
      if (method === 'GET') return this.listPets(q < 0 ? '' : url.slice(q + 1));
      if (method === 'POST' && body !== undefined) return this.createPet(body);
      return this.error(405, 'method_not_allowed', `${method ?? ''} is not allowed on /pets`, ['Allow', 'GET, POST']);
    }
    if (path === ORDERS && !this.fault['orders-missing']) {
      if (method === 'GET') return { status: 200, body: ORDERS_BODY, headers: NONE };
      return this.error(405, 'method_not_allowed', `${method ?? ''} is not allowed on /store/orders`, ['Allow', 'GET']);
    }
    if (path.startsWith(PET_PREFIX) && path.length > PET_PREFIX.length && !path.includes('/', PET_PREFIX.length)) {
      if (method === 'GET') return this.getPet(path.slice(PET_PREFIX.length));
      return this.error(405, 'method_not_allowed', `${method ?? ''} is not allowed on /pets/{petId}`, ['Allow', 'GET']);
    }
    return this.error(
      404,
      'not_found',
      'no such endpoint (the interface has GET /v1/pets, POST /v1/pets, GET /v1/pets/{petId}, GET /v1/store/orders)',
      NONE,
    );
  }

  private listPets(qs: string): Answer {
    const parsed = parseListQuery(qs);
    if (!parsed.ok) return this.error(400, 'invalid_query', parsed.message, NONE);
    const limit = this.fault['ignore-limit'] ? IGNORED_LIMIT : parsed.query.limit;
    const status = this.fault['ignore-status-filter'] ? undefined : parsed.query.status;
    if (this.listCacheVersion !== this.store.version) {
      this.listCache.clear();
      this.listCacheVersion = this.store.version;
    }
    const cacheKey = `${limit}|${status ?? ''}`;
    let body = this.listCache.get(cacheKey);
    if (body === undefined) {
      const drift = this.fault['schema-drift'];
      const items = this.store.list(limit, status).map((p) => petJson(p, drift));
      const array = `[${items.join(',')}]`;
      body = Buffer.from(this.fault['list-envelope'] ? `{"data":${array}}` : array);
      this.listCache.set(cacheKey, body);
    }
    return { status: 200, body, headers: NONE };
  }

  private createPet(body: BodyOutcome): Answer {
    if (body.kind !== 'ok') {
      const answer = this.error(413, 'body_too_large', `the request body exceeds ${MAX_BODY_BYTES} bytes`, NONE);
      return { ...answer, close: true };
    }
    const parsed = parseNewPet(body.text);
    let input: NewPet;
    if (parsed.ok) input = parsed.pet;
    else if (this.fault['accept-invalid']) input = coerceNewPet(body.text);
    else return this.error(400, 'invalid_body', parsed.message, NONE);
    const pet = this.store.create(input);
    return { status: 201, body: petJson(pet, this.fault['schema-drift']), headers: NONE };
  }

  /** Any petId that is not the decimal form of an existing id is "not found": 404, a documented status. */
  private getPet(raw: string): Answer {
    const pet = PET_ID.test(raw) ? this.store.get(Number(raw)) : undefined;
    if (pet === undefined) return this.error(404, 'not_found', 'no animal with that id', DEPRECATION_HEADERS);
    return { status: 200, body: petJson(pet, this.fault['schema-drift']), headers: DEPRECATION_HEADERS };
  }

  private error(status: number, code: string, message: string, headers: readonly string[]): Answer {
    return { status, body: errorJson(status, code, message, !this.fault['error-shape']), headers };
  }

  /** 429 (or 503 under `over-limit-503`) with a Retry-After to `until`. */
  private refusal(code: 'rate_limited' | 'key_banned', until: number, now: number): Answer {
    const status = this.fault['over-limit-503'] ? 503 : 429;
    const message =
      code === 'rate_limited'
        ? 'rate limit exceeded: retry after the time Retry-After gives'
        : 'this API key is temporarily banned for sending during Retry-After: retry after the time Retry-After gives';
    const headers = this.fault['retry-after-missing'] ? NONE : ['Retry-After', this.retryAfter(until - now)];
    return this.error(status, code, message, headers);
  }

  private retryAfter(waitMs: number): string {
    if (this.fault['retry-after-ms']) return String(Math.ceil(waitMs));
    if (this.fault['retry-after-short']) {
      const s = waitMs / 1000;
      return String(Math.max(0, Math.min(Math.floor(s / 2), Math.ceil(s) - 1)));
    }
    return String(Math.max(1, Math.ceil(waitMs / 1000)));
  }

  /** Date, Content-Type, the rate-limit triple (unless a fault drops it), the answer's own headers, Content-Length. */
  private headersFor(answer: Answer, view: WindowView, now: number, length: number): string[] {
    const headers = ['Date', this.date.at(now), 'Content-Type', 'application/json', 'Content-Length', String(length)];
    const s = answer.status;
    const drop =
      answer.unlimited === true ||
      (s === 429 && this.fault['no-headers-on-429']) ||
      ((s === 400 || s === 401 || s === 404) && this.fault['no-headers-on-errors']);
    if (!drop) {
      let remaining = view.remaining;
      if (this.fault['remaining-off-by-one'] && remaining < view.limit) remaining++;
      let reset = Math.ceil(view.resetMs / 1000);
      if (this.fault['reset-in-ms']) reset = view.resetMs;
      else if (this.fault['reset-as-delta']) reset = Math.ceil((view.resetMs - now) / 1000);
      headers.push(
        'X-RateLimit-Limit',
        String(view.limit),
        'X-RateLimit-Remaining',
        String(remaining),
        'X-RateLimit-Reset',
        String(reset),
      );
    }
    for (const h of answer.headers) headers.push(h);
    if (answer.close === true) headers.push('Connection', 'close');
    return headers;
  }

  private finish(res: ServerResponse, answer: Answer, view: WindowView, now: number, truncate: boolean): void {
    let body = typeof answer.body === 'string' ? Buffer.from(answer.body) : answer.body;
    if (truncate) body = body.subarray(0, body.length >> 1);
    if (this.instances > 1) return this.fromInstance(res, answer, view, now, body);
    const headers = this.headersFor(answer, view, now, body.length);
    if (this.fault.slow) setTimeout(writeAnswer, this.slowMs, res, answer.status, headers, body);
    else writeAnswer(res, answer.status, headers, body);
  }

  /**
   * An answer of the next instance of a fleet over the one limiter: the decision was the shared counter's, the
   * clock is the instance's (Date and Reset, a TTL read on its clock, the first instance's exact, the last one's a
   * second ahead), and it goes
   * out after a short random delay, so that concurrent answers complete out of order.
   */
  private fromInstance(res: ServerResponse, answer: Answer, view: WindowView, now: number, body: Buffer): void {
    const i = this.turn++ % this.instances;
    const offset = Math.round((i / (this.instances - 1)) * INSTANCE_SPREAD_MS);
    const headers = this.headersFor(answer, { ...view, resetMs: view.resetMs + offset }, now + offset, body.length);
    const delay = this.random() * INSTANCE_JITTER_MS + (this.fault.slow ? this.slowMs : 0);
    setTimeout(writeAnswer, delay, res, answer.status, headers, body);
  }

  /**
   * A bug of the reference server: answer 500 rather than crash (the suite flags any 5xx). This path relies on
   * nothing that might itself be the bug, not even the clock, so it carries no Date or rate-limit headers.
   */
  private internalError(res: ServerResponse, e: unknown): void {
    if (res.headersSent || res.destroyed) return;
    const body = errorJson(
      500,
      'internal_error',
      `reference server bug: ${e instanceof Error ? e.message : String(e)}`,
      true,
    );
    res.sendDate = false;
    res.writeHead(500, ['Content-Type', 'application/json', 'Content-Length', String(Buffer.byteLength(body))]);
    res.end(body);
  }
}

/** A request to `GET /v1/store/orders` (any query). */
function isOrders(req: IncomingMessage): boolean {
  const url = req.url ?? '';
  return req.method === 'GET' && (url === ORDERS || url.startsWith(`${ORDERS}?`));
}

/** The counter that answers this request: the key's one, or under `per-instance` each replica's in turn. */
function replica(state: KeyState): Quota {
  if (state.other === undefined) return state.quota;
  state.turn = (state.turn ?? 0) + 1;
  return state.turn % 2 === 1 ? state.quota : state.other;
}

/**
 * Writes an answer (unless the client went away meanwhile). A module function rather than a closure made per
 * request: under the TypeScript loader every named closure costs a defineProperty of its name when created.
 */
function writeAnswer(res: ServerResponse, status: number, headers: string[], body: Buffer): void {
  if (res.destroyed) return;
  res.sendDate = false;
  res.writeHead(status, headers);
  res.end(body);
}

/** The `accept-invalid` fault: make a valid NewPet out of whatever was sent, so only creation is wrong. */
function coerceNewPet(text: string): NewPet {
  const json = parseJson(text);
  const o =
    json.ok && typeof json.value === 'object' && json.value !== null ? (json.value as Record<string, unknown>) : {};
  const statuses: readonly unknown[] = PET_STATUSES;
  return {
    name: typeof o.name === 'string' ? o.name : String(o.name ?? 'unnamed'),
    categoryId: Number.isSafeInteger(o.categoryId) ? (o.categoryId as number) : 0,
    ...(statuses.includes(o.status) ? { status: o.status as NewPet['status'] } : {}),
  };
}

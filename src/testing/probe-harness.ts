/**
 * Test-only: one probe run alone against a scripted loopback target, for the probes' unit tests. The target is a
 * real node:http server that answers each request from a function of the request (its number, path, key) and of
 * the run clock: status, headers (X-RateLimit-*, Retry-After, Date, as the test wants) and body. The probe runs on
 * the run's own wiring (engine/run-context.ts: client, ledger, observer, key states) with the context the engine
 * gives it (probeContextOf), laid out and run by the engine's planner and runner (schedule.ts,
 * run-schedule.ts: its keys, its bounds), on a clock `scale` times faster than real time. What comes back is the
 * ledger's outcomes for the probe's checks, once the run's end has resolved them. Never imported by src.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { MINUTE_MS, type PlanLimits, type PlanName } from '../api/plans.js';
import type { AnyCheckId } from '../checks/catalogue.js';
import { type Ledger, type Outcome, statusOf } from '../checks/ledger.js';
import { type ApiKey, keyLabel } from '../core/api-key.js';
import { type Clock, createClock } from '../core/clock.js';
import { REQUEST_TIMEOUT_MS } from '../core/defaults.js';
import { createRunContext, probeContextOf } from '../engine/run-context.js';
import { runSchedule } from '../engine/run-schedule.js';
import { planSchedule, scheduleInputOf } from '../engine/schedule.js';
import type { Exchange } from '../http/exchange.js';
import { PROBE_REGISTRY } from '../probes/index.js';
import type { ProbeName } from '../probes/names.js';
import type { ProbeContext } from '../probes/context.js';

/** A request as the scripted target received it. */
export interface Received {
  /** 1-based, in arrival order, over the whole run. */
  readonly n: number;
  readonly method: string;
  /** The path below /v1, with its query (`/pets?limit=1`). */
  readonly path: string;
  /** The bearer credential, or null without one. */
  readonly secret: string | null;
  readonly headers: IncomingMessage['headers'];
  readonly body: string;
  /** Run-clock ms (the clock the probe runs on) when it arrived. */
  readonly at: number;
}

/**
 * What the target answers: a JSON body (any value but a string) or a raw one. `cut`: the head and half the body are
 * sent, then the connection is closed (no whole response); `drop`: the connection is closed with no answer.
 */
export interface Answer {
  readonly status: number;
  readonly cut?: boolean;
  readonly drop?: boolean;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: unknown;
}

export type Script = (req: Received) => Answer | Promise<Answer>;

/** A key of `plan` with small figures, so that a window is spent in a few requests. */
export function figuresKey(plan: PlanName, n: number, limits: PlanLimits, extra: Partial<ApiKey> = {}): ApiKey {
  const secret = `${plan}-harness-secret-0123456789abcdef-k${String(n).padStart(3, '0')}`;
  return { secret, plan, limits, label: keyLabel(secret, `${plan}#${n}`), sacrificial: false, ...extra };
}

/** The Date header for run-clock ms `at`. */
export const dateAt = (at: number) => new Date(at).toUTCString();

/** X-RateLimit-* and Date: `reset` in run-clock ms (written as whole Unix seconds, rounded up). */
export function limitHeaders(limit: number, remaining: number, reset: number, at: number): Record<string, string> {
  return {
    'X-RateLimit-Limit': String(limit),
    'X-RateLimit-Remaining': String(Math.max(0, remaining)),
    'X-RateLimit-Reset': String(Math.ceil(reset / 1000)),
    Date: dateAt(at),
  };
}

export const PET = { id: 1, name: 'rex', categoryId: 1, status: 'available' };
const ERRORS: Record<number, string> = {
  400: 'bad_request',
  401: 'unauthorized',
  404: 'not_found',
  429: 'rate_limited',
};

/** The API's error body for a status. */
export const errorBody = (status: number, message = 'scripted') => ({
  code: ERRORS[status] ?? 'error',
  message,
  status,
});

/** One key's windows as a fixed-window limiter keeps them: opened by a key's first request, a minute long. */
export interface KeyWindow {
  /** 0: the key's first window. */
  index: number;
  start: number;
  used: number;
}

export interface LimiterOptions {
  /** Requests a window accepts (default: the key's per-minute figure). */
  readonly limit?: (key: ApiKey) => number;
  /** The Limit announced (default: `limit`). */
  readonly announced?: (key: ApiKey) => number;
  /** Seconds a 429 asks to wait (default: to the window's end). */
  readonly retryAfter?: (w: KeyWindow, at: number) => number;
  /** A count already spent when a key's window opens (another client's requests); `index` 0: its first. */
  readonly spent?: (key: ApiKey, index: number) => number;
  /** Window length, run-clock ms (default a minute). */
  readonly windowMs?: number;
}

/**
 * A compliant fixed-window limiter over `keys`: each key's window opens with its first request and lasts a minute;
 * it accepts `limit` requests (200, a list of one animal, or the animal for /pets/<id>) with X-RateLimit-* and
 * Date, then refuses with 429 and Retry-After to the window's end. Unknown or missing keys get 401.
 */
export function fixedWindow(
  keys: readonly ApiKey[],
  o: LimiterOptions = {},
): ((req: Received) => Answer) & { windows: Map<string, KeyWindow> } {
  const windows = new Map<string, KeyWindow>();
  const windowMs = o.windowMs ?? MINUTE_MS;
  const script = (req: Received): Answer => {
    const key = keys.find((k) => k.secret === req.secret);
    if (!key) return { status: 401, headers: { 'WWW-Authenticate': 'Bearer' }, body: errorBody(401) };
    let w = windows.get(key.secret);
    if (!w || req.at >= w.start + windowMs) {
      const index = w ? w.index + 1 : 0;
      w = { index, start: req.at, used: o.spent?.(key, index) ?? 0 };
      windows.set(key.secret, w);
    }
    const limit = o.limit?.(key) ?? key.limits.perMinute;
    const announced = o.announced?.(key) ?? limit;
    const reset = w.start + windowMs;
    if (w.used >= limit) {
      const wait = o.retryAfter?.(w, req.at) ?? Math.max(1, Math.ceil((reset - req.at) / 1000));
      const headers = { ...limitHeaders(announced, 0, reset, req.at), 'Retry-After': String(wait) };
      return { status: 429, headers, body: errorBody(429) };
    }
    w.used++;
    const headers = limitHeaders(announced, announced - w.used, reset, req.at);
    return { status: 200, headers, body: req.path.startsWith('/pets/') ? PET : [PET] };
  };
  return Object.assign(script, { windows });
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** The scripted target on a loopback port. */
async function scriptedTarget(script: Script, clock: Clock, received: Received[]): Promise<Server> {
  const server = createServer(async (req, res) => {
    const at = clock.now();
    const auth = req.headers.authorization;
    const r: Received = {
      n: received.length + 1,
      method: req.method ?? 'GET',
      path: (req.url ?? '/').replace(/^\/v1/, ''),
      secret: auth?.startsWith('Bearer ') ? auth.slice(7) : null,
      headers: req.headers,
      body: await readBody(req),
      at,
    };
    received.push(r);
    try {
      const a = await script(r);
      if (a.drop) return void res.destroy();
      const raw = typeof a.body === 'string';
      const body = a.body === undefined ? '' : raw ? (a.body as string) : JSON.stringify(a.body);
      const type = a.body === undefined || raw ? {} : { 'Content-Type': 'application/json' };
      res.writeHead(a.status, { Date: dateAt(at), ...type, ...a.headers });
      if (a.cut) {
        res.flushHeaders();
        res.write(body.slice(0, body.length >> 1), () => res.destroy());
      } else res.end(body);
    } catch (e) {
      res.writeHead(500).end(String(e));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}

export interface ProbeAloneOptions {
  readonly probe: ProbeName;
  readonly keys: readonly ApiKey[];
  readonly script: Script;
  /** How many times faster than real time the run clock goes (default 60: a minute in a real second). */
  readonly scale?: number;
  /** The plans judged (default: the keys'). */
  readonly plans?: readonly PlanName[];
}

export interface ProbeAlone {
  readonly ledger: Ledger;
  /** The ledger's outcomes for the probe's checks. */
  readonly outcomes: readonly Outcome[];
  /** The outcome of one check on a plan (default: the first key's plan). */
  outcome(id: AnyCheckId, plan?: PlanName | null): Outcome | undefined;
  /** pass, fail or skip, and the texts (evidence messages, skip reasons) of one check's outcome. */
  status(id: AnyCheckId, plan?: PlanName | null): { status: 'pass' | 'fail' | 'skip' | 'none'; text: string };
  readonly received: readonly Received[];
  readonly exchanges: readonly Exchange[];
  readonly logs: readonly string[];
  readonly notes: readonly string[];
}

/** Runs one probe alone against the scripted target, as the engine runs a schedule of that one probe. */
export function runProbeAlone(o: ProbeAloneOptions): Promise<ProbeAlone> {
  return withProbeContext(o, async (ctx, plans) => {
    const schedule = planSchedule(scheduleInputOf([o.probe], o.keys, plans, ctx.clock.scale));
    await runSchedule(schedule, ctx, plans, [o.probe]);
  });
}

/**
 * Runs `body` with the probes' context of a run against the scripted target (for the helpers several probes share,
 * such as window.ts's exhaust): the same wiring as runProbeAlone, without a schedule (no probe bounds).
 */
export async function withProbeContext(
  o: Omit<ProbeAloneOptions, 'probe'> & { readonly probe?: ProbeName },
  body: (ctx: ProbeContext, plans: readonly PlanName[]) => Promise<void>,
): Promise<ProbeAlone> {
  const clock = createClock(o.scale ?? 60);
  const received: Received[] = [];
  const exchanges: Exchange[] = [];
  const logs: string[] = [];
  const notes: string[] = [];
  const server = await scriptedTarget(o.script, clock, received);
  const { port } = server.address() as { port: number };
  const plans = o.plans ?? [...new Set(o.keys.map((k) => k.plan))];
  const run = createRunContext({
    baseUrl: `http://127.0.0.1:${port}/v1`,
    clock,
    keys: o.keys,
    plans,
    connections: 64,
    timeoutMs: REQUEST_TIMEOUT_MS,
    signal: new AbortController().signal,
    stopped: () => new Error('a request was sent after the run was stopped'),
    onExchange: (ex) => exchanges.push(ex),
  });
  try {
    await body(probeContextOf(run, { note: (t) => notes.push(t), log: (t) => logs.push(t) }), plans);
  } finally {
    await run.close();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
  const checks: readonly string[] = o.probe ? PROBE_REGISTRY[o.probe].checks : [];
  const outcomes = run.ledger.all().filter((x) => checks.includes(x.id));
  const outcome = (id: AnyCheckId, plan: PlanName | null = o.keys[0]?.plan ?? null) =>
    run.ledger.all().find((x) => x.id === id && x.plan === plan);
  return {
    ledger: run.ledger,
    outcomes,
    outcome,
    status(id, plan) {
      const x = outcome(id, plan);
      if (!x) return { status: 'none', text: '' };
      const text = [...x.evidence.map((e) => e.message), ...x.skipReasons].join(' | ');
      return { status: statusOf(x), text };
    },
    received,
    exchanges,
    logs,
    notes,
  };
}

export interface StoredPet {
  id: number;
  name: string;
  categoryId: number;
  status?: string;
}

/**
 * A small compliant Animal Store behind `fixedWindow`: GET /pets (with limit and status), POST /pets (a NewPet
 * with a string name and an integer categoryId, else 400), GET /pets/<id> (404 when unknown). `pets` is its data.
 */
export function animalStore(
  keys: readonly ApiKey[],
  o: LimiterOptions = {},
): ((req: Received) => Answer) & { pets: StoredPet[]; windows: Map<string, KeyWindow> } {
  const limiter = fixedWindow(keys, o);
  const pets: StoredPet[] = [];
  const script = (req: Received): Answer => {
    const a = limiter(req);
    if (a.status !== 200) return a;
    const [path, query = ''] = req.path.split('?');
    const q = new URLSearchParams(query);
    if (req.method === 'POST') {
      let body: unknown;
      try {
        body = JSON.parse(req.body);
      } catch {
        return { status: 400, headers: a.headers, body: errorBody(400) };
      }
      const b = body as Partial<StoredPet> | null;
      const valid = typeof b?.name === 'string' && Number.isInteger(b.categoryId) && !Array.isArray(body);
      if (!valid) return { status: 400, headers: a.headers, body: errorBody(400) };
      const pet: StoredPet = {
        id: pets.length + 1,
        name: b.name!,
        categoryId: b.categoryId!,
        status: b.status ?? 'available',
      };
      pets.push(pet);
      return { status: 201, headers: a.headers, body: pet };
    }
    const one = /^\/pets\/(\d+)$/.exec(path ?? '');
    if (one) {
      const pet = pets.find((p) => p.id === Number(one[1]));
      return pet ? { ...a, body: pet } : { status: 404, headers: a.headers, body: errorBody(404) };
    }
    const status = q.get('status');
    const listed = pets.filter((p) => status === null || p.status === status);
    return { ...a, body: listed.slice(0, Number(q.get('limit') ?? 20)) };
  };
  return Object.assign(script, { pets, windows: limiter.windows });
}

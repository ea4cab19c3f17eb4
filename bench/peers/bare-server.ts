/**
 * The bench's peer servers, on bare node:http with nothing in the way: what a target costs at the least, so
 * that a ratio against them measures the load generator (or the reference server), not the target.
 *
 * - `list`: every request gets a 200 with the 20-animal list (the first `limit` of them, of the `status`
 *   asked for: answers are made once per distinct query and kept), a Content-Type, node's Date and a
 *   rate-limit triple from one per-minute counter (Remaining falls, Reset is the minute's end), so that the
 *   suite's passive checks take their passing path on every answer, as with a healthy target.
 * - `delay`: the same answer, held `ms` after the request arrived: a timer, then setImmediate turns until the
 *   hold is exact to tens of microseconds (a bare timer fires up to a millisecond late), so that the latency
 *   the suite reports can be held against a known service time.
 * - `replay`: fixed bytes captured from another server (status, raw headers and body), for every request.
 *
 * An `ArrivalLog` may note when each request arrived and how long it was held, to judge pacing at the
 * server, where every load generator's requests are seen the same way.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { BENCH_LIMITS } from '../lib/key.js';

export type BareMode =
  | { kind: 'list' }
  | { kind: 'delay'; ms: number }
  /** `headers` flat (name, value, name, value…), `body` in base64. */
  | { kind: 'replay'; status: number; headers: string[]; body: string };

export const LIST_SIZE = 20;
const STATUSES = ['available', 'pending', 'sold', undefined] as const;
const PETS = Array.from({ length: LIST_SIZE }, (_, i) => {
  const status = STATUSES[i % STATUSES.length];
  return {
    id: LIST_SIZE - i,
    name: `Animal ${LIST_SIZE - i}`,
    categoryId: 1 + (i % 7),
    ...(status === undefined ? {} : { status }),
  };
});

/** The 20-animal list, or the first `limit` of its animals with `status` when the query asks for them. */
export function listBody(query = ''): Buffer {
  const q = new URLSearchParams(query);
  const status = q.get('status');
  const limit = Number(q.get('limit') ?? LIST_SIZE);
  const pets = PETS.filter((p) => status === null || p.status === status);
  return Buffer.from(JSON.stringify(Number.isInteger(limit) && limit > 0 ? pets.slice(0, limit) : pets));
}

/** Answers by request URL, made on first sight; bounded (the bench sends a few hundred distinct queries). */
class ListBodies {
  private readonly bodies = new Map<string, { body: Buffer; length: string }>();

  get(url: string): { body: Buffer; length: string } {
    let b = this.bodies.get(url);
    if (b === undefined) {
      const q = url.indexOf('?');
      const body = listBody(q < 0 ? '' : url.slice(q + 1));
      b = { body, length: String(body.length) };
      if (this.bodies.size < 4096) this.bodies.set(url, b);
    }
    return b;
  }
}

export interface Arrivals {
  /** performance.now() ms of the server process when each request was parsed. */
  arrivals: number[];
  /** Real ms from each request's arrival to its answer being written. */
  holds: number[];
  /** True when requests came after the log was full (they are not in it). */
  full: boolean;
}

/** Arrival times and hold times (performance.now() ms) of the requests since `start`, up to a capacity. */
export class ArrivalLog {
  private arrivals = new Float64Array(0);
  private holds = new Float64Array(0);
  private n = 0;
  private on = false;

  start(capacity: number): void {
    this.arrivals = new Float64Array(capacity);
    this.holds = new Float64Array(capacity);
    this.n = 0;
    this.on = true;
  }

  /** Called when an answer is written: `arrived` is when its request was parsed. */
  note(arrived: number, now: number): void {
    if (!this.on || this.n >= this.arrivals.length) return;
    this.arrivals[this.n] = arrived;
    this.holds[this.n] = now - arrived;
    this.n++;
  }

  /** Stops noting and gives what was noted, oldest first. */
  collect(): Arrivals {
    this.on = false;
    return {
      arrivals: Array.from(this.arrivals.subarray(0, this.n)),
      holds: Array.from(this.holds.subarray(0, this.n)),
      full: this.n >= this.arrivals.length,
    };
  }
}

/** Per-minute counter behind the `list` answers' rate-limit triple. */
class MinuteCounter {
  private minute = -1;
  private count = 0;
  readonly limit = String(BENCH_LIMITS.perMinute);

  next(nowMs: number): { remaining: string; reset: string } {
    const minute = Math.floor(nowMs / 60_000);
    if (minute !== this.minute) {
      this.minute = minute;
      this.count = 0;
    }
    this.count++;
    return { remaining: String(BENCH_LIMITS.perMinute - this.count), reset: String((minute + 1) * 60) };
  }
}

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

function listHandler(log: ArrivalLog, holdMs: number): Handler {
  const bodies = new ListBodies();
  const counter = new MinuteCounter();
  const answer = (req: IncomingMessage, res: ServerResponse, arrived: number) => {
    const { body, length } = bodies.get(req.url ?? '');
    const { remaining, reset } = counter.next(Date.now());
    res.writeHead(200, [
      'Content-Type',
      'application/json',
      'Content-Length',
      length,
      'X-RateLimit-Limit',
      counter.limit,
      'X-RateLimit-Remaining',
      remaining,
      'X-RateLimit-Reset',
      reset,
    ]);
    res.end(body);
    log.note(arrived, performance.now());
  };
  if (holdMs <= 0) {
    return (req, res) => {
      req.resume();
      answer(req, res, performance.now());
    };
  }
  return (req, res) => {
    req.resume();
    const arrived = performance.now();
    const due = arrived + holdMs;
    const spin = () => {
      if (performance.now() >= due) answer(req, res, arrived);
      else setImmediate(spin);
    };
    // Node timers fire late, never early: sleep to 2 ms before the due time, then turn the event loop.
    setTimeout(spin, Math.max(0, holdMs - 2));
  };
}

function replayHandler(log: ArrivalLog, mode: Extract<BareMode, { kind: 'replay' }>): Handler {
  const body = Buffer.from(mode.body, 'base64');
  const { status, headers } = mode;
  return (req, res) => {
    req.resume();
    const arrived = performance.now();
    // The captured headers carry their own Date: node must not add a second one.
    res.sendDate = false;
    res.writeHead(status, headers);
    res.end(body);
    log.note(arrived, performance.now());
  };
}

export interface BareServer {
  /** Base address, e.g. `http://127.0.0.1:PORT/v1` (every path gets the list answer of its query). */
  readonly url: string;
  readonly log: ArrivalLog;
  close(): Promise<void>;
}

export async function startBareServer(mode: BareMode): Promise<BareServer> {
  const log = new ArrivalLog();
  const handler =
    mode.kind === 'replay' ? replayHandler(log, mode) : listHandler(log, mode.kind === 'delay' ? mode.ms : 0);
  const server = createServer({ keepAliveTimeout: 60_000 }, handler);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host: '127.0.0.1', port: 0, backlog: 4096 }, () => resolve());
  });
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('the bare server has no TCP address');
  return {
    url: `http://127.0.0.1:${address.port}/v1`,
    log,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/**
 * The two probes that wait a 429 out (retry-after-honest, restore), branch by branch, against small loopback targets
 * that take each branch, on a clock 4 times faster than real time (a window lasts 15 real seconds):
 *
 * - compliant: a fixed window from a key's first request; Retry-After and Reset tell when it ends. Both checks pass.
 * - late: a gateway's limiter, as HAProxy's stick tables keep it: a rate over a minute estimated from the counts of
 *   this period and the last (refused requests counted), `Reset` always now + 60, `Retry-After: 60`. The request
 *   sent once both have passed is refused again, by a window that began after the wait, though petload sent nothing
 *   else on the key: both checks fail with the promise, the wait and the answer.
 * - other client: the compliant window, but another client (real requests on the same key) spends the window after
 *   the wait as it begins, and part of the next one: the answer to petload's next request shows it (a Remaining lower
 *   than petload's own requests explain), so the refusal is read as another client's doing: a skip, not a failure.
 *
 * Each run is a real one (runScenario against the target at its URL, the probe's own bounds included).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { MINUTE_MS } from '../api/plans.js';
import { parseKeys } from '../config/keys-file.js';
import { parseScenarioText } from '../config/load-scenario.js';
import { type Clock, createClock } from '../core/clock.js';
import { runScenario } from '../engine/run.js';
import type { CheckResult } from '../report/schema.js';
import type { ProbeName } from './names.js';

const SCALE = 4;
const LIMIT = 5;
/** How many requests the other client sends in the window after the one petload spends. */
const OTHERS_NEXT = 2;
/**
 * A second the other-client target adds to its Retry-After (61 s at most: a window and Reset's rounding, still
 * followed as it is), so that the other client is first in the new window.
 */
const SLACK_S = 1;

type Limiter = 'compliant' | 'late' | 'other-client';

interface Target {
  readonly url: string;
  readonly key: string;
  /** Requests the other client sent. */
  readonly others: () => number;
  close(): Promise<void>;
}

/** The minute's counts, as a gateway's stick table keeps them: this period's, the last one's, and when this began. */
interface Rate {
  start: number;
  curr: number;
  prev: number;
}

/** HAProxy's freq_ctr: the period rolled forward to `now`, then the rate over the last minute it estimates. */
function rateAt(r: Rate, now: number): number {
  const periods = Math.floor((now - r.start) / MINUTE_MS);
  if (periods >= 1) {
    r.prev = periods === 1 ? r.curr : 0;
    r.curr = 0;
    r.start += periods * MINUTE_MS;
  }
  return r.curr + (r.prev * (MINUTE_MS - (now - r.start))) / MINUTE_MS;
}

interface Answer {
  ok: boolean;
  /** When the window that answered ends (epoch ms; the gateway's: never, its rate slides). */
  ends: number;
  remaining: number;
  /** Epoch seconds. */
  reset: number;
  retryAfter: number;
}

/** One key's limiter: a fixed window from its first request, or the gateway's estimated rate. */
function limiterOf(kind: Limiter, clock: Clock, onNewWindow: (endsAt: number) => void): () => Answer {
  let window: { start: number; count: number } | null = null;
  const rate: Rate = { start: 0, curr: 0, prev: 0 };
  if (kind === 'late')
    return () => {
      const now = clock.now();
      if (rate.start === 0) rate.start = now;
      rateAt(rate, now);
      rate.curr++; // every request counts, refused ones too
      const r = rateAt(rate, now);
      const reset = Math.ceil(now / 1000) + 60;
      const remaining = Math.max(0, LIMIT - Math.ceil(r));
      return { ok: r <= LIMIT, ends: Number.POSITIVE_INFINITY, remaining, reset, retryAfter: 60 };
    };
  return () => {
    const now = clock.now();
    if (window === null || now >= window.start + MINUTE_MS) {
      window = { start: now, count: 0 };
      onNewWindow(now + MINUTE_MS);
    }
    const end = window.start + MINUTE_MS;
    const reset = Math.ceil(end / 1000);
    const ok = window.count < LIMIT;
    if (ok) window.count++;
    const slack = kind === 'other-client' ? SLACK_S : 0;
    return { ok, ends: end, remaining: LIMIT - window.count, reset, retryAfter: Math.ceil((end - now) / 1000) + slack };
  };
}

/** Another client: `n` requests on the key at once, over its own connections. */
async function otherClient(url: string, key: string, n: number): Promise<void> {
  const one = () =>
    new Promise<void>((resolve) => {
      const req = request(`${url}/pets?limit=1`, { headers: { authorization: `Bearer ${key}` } }, (res) => {
        res.resume().on('end', resolve);
      });
      req.on('error', () => resolve());
      req.end();
    });
  await Promise.all(Array.from({ length: n }, one));
}

async function startTarget(kind: Limiter, clock: Clock): Promise<Target> {
  const key = `free-${kind}-0123456789abcdef0123`;
  let others = 0;
  let firstRefusalSeen = false;
  let spending = 0;
  let url = '';
  const timers: NodeJS.Timeout[] = [];
  /** After petload's first 429: the other client waits for the window to end, then spends the next one. */
  const onNewWindow = (endsAt: number) => {
    if (kind !== 'other-client' || !firstRefusalSeen || spending >= 2) return;
    const n = spending === 0 ? LIMIT : OTHERS_NEXT;
    spending++;
    timers.push(
      setTimeout(
        () => {
          others += n;
          void otherClient(url, key, n);
        },
        (endsAt - clock.now()) / SCALE + 5,
      ),
    );
  };
  const limiter = limiterOf(kind, clock, onNewWindow);
  const server: Server = createServer((req, res) => {
    const json = { 'content-type': 'application/json', date: new Date(clock.now()).toUTCString() };
    if (req.headers.authorization !== `Bearer ${key}`) {
      res.writeHead(401, { ...json, 'www-authenticate': 'Bearer' });
      res.end('{"code":"unauthorized","message":"no valid key","status":401}');
      return;
    }
    if (!req.url?.startsWith('/v1/pets')) {
      res.writeHead(404, json).end('{"code":"not_found","message":"no such path","status":404}');
      return;
    }
    const a = limiter();
    const limits = {
      'x-ratelimit-limit': String(LIMIT),
      'x-ratelimit-remaining': String(a.remaining),
      'x-ratelimit-reset': String(a.reset),
    };
    if (a.ok) {
      res.writeHead(200, { ...json, ...limits }).end('[{"id":1,"name":"rex","categoryId":1,"status":"available"}]');
      return;
    }
    if (!firstRefusalSeen) {
      firstRefusalSeen = true;
      onNewWindow(a.ends);
    }
    res.writeHead(429, { ...json, ...limits, 'retry-after': String(a.retryAfter) });
    res.end('{"code":"rate_limited","message":"slow down","status":429}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as { port: number }).port}/v1`;
  return {
    url,
    key,
    others: () => others,
    close: async () => {
      for (const t of timers) clearTimeout(t);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** The one check `probe` judges, from a run of that probe alone against a target of the kind. */
async function judged(probe: ProbeName, kind: Limiter): Promise<{ check: CheckResult; others: number }> {
  const clock = createClock(SCALE);
  const target = await startTarget(kind, clock);
  const dir = mkdtempSync(join(tmpdir(), 'petload-wait-out-'));
  dirs.push(dir);
  try {
    const { report } = await runScenario({
      scenario: parseScenarioText(`name: wait-out\ndescription: one probe\nprobes: [${probe}]\n`, 'inline.yaml'),
      target: {
        kind: 'external',
        url: target.url,
        clock,
        keys: parseKeys({ keys: [{ key: target.key, plan: 'free', perMinute: LIMIT, perDay: 1000 }] }, 'keys'),
      },
      reportDir: dir,
      log: () => {},
    });
    const id = probe === 'restore' ? 'ratelimit.quota-restored' : 'retry-after.honest';
    return { check: report.checks.find((c) => c.id === id)!, others: target.others() };
  } finally {
    await target.close();
  }
}

const messages = (c: CheckResult) => c.byPlan.flatMap((p) => p.evidence.map((e) => e.message));
const reasons = (c: CheckResult) => c.byPlan.flatMap((p) => p.reasons);

const WAITS = {
  'retry-after-honest': String.raw`after waiting Retry-After \(60 s\) \+ 250 ms`,
  restore: 'after Retry-After and Reset had passed',
} as const;

describe.concurrent('the probes that wait a 429 out', () => {
  for (const probe of ['retry-after-honest', 'restore'] as const) {
    it(`${probe}: a compliant target passes`, { timeout: 120_000 }, async () => {
      const { check } = await judged(probe, 'compliant');
      expect(messages(check)).toEqual([]);
      expect(check.status).toBe('pass');
    });

    it(`${probe}: a target refusing after the wait it promised, the key quiet, fails with the promise, the wait and the answer`, {
      timeout: 120_000,
    }, async () => {
      const { check } = await judged(probe, 'late');
      expect(check.status).toBe('fail');
      expect(messages(check)).toEqual([
        expect.stringMatching(
          new RegExp(
            `^refused \\(429\\) ${WAITS[probe]}, as the key's first request in the window after it; ` +
              'the 429 that promised: Retry-After: 60, X-RateLimit-Reset: \\d+, Date: [^;]+; ' +
              `petload came back 6\\d\\.\\d s after it \\(at [^,]+, petload's clock; 6\\d s by the target's Date\\); ` +
              'the answer then: 429, Retry-After: 60, X-RateLimit-Reset: \\d+, Date: [^;]+; ' +
              'after one more wait: 200 \\(Remaining 3 of 5\\)$',
          ),
        ),
      ]);
    });

    it(`${probe}: a window after the wait that another client spent, as Remaining shows, is not the target's failure`, {
      timeout: 120_000,
    }, async () => {
      const { check, others } = await judged(probe, 'other-client');
      expect(others).toBe(LIMIT + OTHERS_NEXT);
      expect(check.status).toBe('skip');
      expect(reasons(check)).toEqual([
        expect.stringMatching(
          /^refused after the wait by a window that began after it, and the next window's answer shows Remaining 2 of 5, where petload's 2 requests on the key since explain 3: another client is using the key, or requests with other keys/,
        ),
      ]);
    });
  }
});

/**
 * A run's worth of exchanges without a network, for the in-process figures: the exchange i of a steady run
 * at 1000 requests per run-clock second, spread round-robin over KEYS enterprise keys, each a 200 answer
 * to GET /pets?limit=20 with the same 20-animal list (decoded once, as the client decodes it) and a
 * rate-limit triple that counts down per key within each minute window, so that every passive check takes
 * its passing path. Exchanges are made from one template, varying only seq, key, times and headers; each has
 * an empty parse memo on the stream's Date cache, as the client gives its exchanges (src/http/parsed.ts).
 */
import { MINUTE_MS, type PlanLimits, type PlanName } from '../../src/api/plans.js';
import { keyLabel } from '../../src/core/api-key.js';
import { decodeBody } from '../../src/http/body.js';
import type { Exchange, ParsedBody } from '../../src/http/exchange.js';
import { DateCache, ResponseMemo } from '../../src/http/parsed.js';
import { listBody } from '../peers/bare-server.js';
import { BENCH_LIMITS } from '../lib/key.js';

export const KEYS = 4;
/** Run-clock ms between two exchanges. */
const STEP_MS = 1;
/** The run starts on a minute boundary: 2030-01-15 12:00:00 UTC. */
const T0 = Date.UTC(2030, 0, 15, 12, 0, 0);
const LIMIT = String(BENCH_LIMITS.perMinute);

export const STREAM_PLANS: ReadonlyMap<PlanName, PlanLimits> = new Map([['enterprise', BENCH_LIMITS]]);

export interface ExchangeStream {
  /** The i-th exchange (0-based) of the run; i must not decrease between calls, for the Date cache. */
  at(i: number): Exchange;
}

export function createExchangeStream(): ExchangeStream {
  const text = listBody().toString('utf8');
  const body: ParsedBody = decodeBody(text, 'application/json');
  const labels = Array.from({ length: KEYS }, (_, k) => keyLabel(`bench-key-${k}-xxxx`, `enterprise#${k + 1}`));
  const dates = new DateCache();
  let dateSecond = -1;
  let date = '';
  return {
    at(i) {
      const t = i * STEP_MS;
      const wall = T0 + t;
      const second = Math.floor(wall / 1000);
      if (second !== dateSecond) {
        dateSecond = second;
        date = new Date(second * 1000).toUTCString();
      }
      const k = i % KEYS;
      const window = Math.floor(t / MINUTE_MS);
      const inWindow = Math.floor((t - window * MINUTE_MS) / (STEP_MS * KEYS)) + 1;
      return {
        seq: i + 1,
        operation: 'listPets',
        method: 'GET',
        path: '/pets?limit=20',
        auth: 'valid',
        keyLabel: labels[k]!,
        plan: 'enterprise',
        requestBody: null,
        status: 200,
        headers: {
          date,
          'content-type': 'application/json',
          'content-length': String(text.length),
          'x-ratelimit-limit': LIMIT,
          'x-ratelimit-remaining': String(BENCH_LIMITS.perMinute - inWindow),
          'x-ratelimit-reset': String((T0 + (window + 1) * MINUTE_MS) / 1000),
        },
        body,
        error: null,
        timing: { intended: t, sent: t, headers: t + 0.3, done: t + 0.5 },
        localTime: wall + 0.5,
        overlapped: false,
        tag: 'bench',
        parsed: new ResponseMemo(dates),
      };
    },
  };
}

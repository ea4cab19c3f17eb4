/**
 * Test-only helpers for the reference server's tests: one request over real HTTP (global fetch), and a
 * manual clock. Never imported by non-test code.
 */
import { keyLabel, type ApiKey } from '../core/api-key.js';
import type { Clock } from '../core/clock.js';
import { parseJson } from './body.js';

export interface Reply {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
  /** The body parsed losslessly (integers beyond 2^53 as bigints), or undefined when it does not parse. */
  readonly json: unknown;
}

export interface CallOptions {
  method?: string;
  /** A key (sent as Bearer), a raw Authorization value, or nothing. */
  auth?: ApiKey | { header: string };
  body?: string;
}

export async function call(baseUrl: string, path: string, options: CallOptions = {}): Promise<Reply> {
  const headers: Record<string, string> = {};
  if (options.auth !== undefined) {
    headers.authorization = 'header' in options.auth ? options.auth.header : `Bearer ${options.auth.secret}`;
  }
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(baseUrl + path, {
    method: options.method ?? 'GET',
    headers,
    ...(options.body === undefined ? {} : { body: options.body }),
  });
  const text = await res.text();
  const parsed = parseJson(text);
  const json = parsed.ok ? parsed.value : undefined;
  return { status: res.status, headers: res.headers, text, json };
}

/** The rate-limit triple and Date as numbers (NaN when absent). */
export function rate(r: Reply): { limit: number; remaining: number; reset: number; date: number; retryAfter: number } {
  const n = (name: string) => {
    const v = r.headers.get(name);
    return v === null ? NaN : Number(v);
  };
  const date = r.headers.get('date');
  return {
    limit: n('x-ratelimit-limit'),
    remaining: n('x-ratelimit-remaining'),
    reset: n('x-ratelimit-reset'),
    date: date === null ? NaN : Date.parse(date) / 1000,
    retryAfter: n('retry-after'),
  };
}

/** A clock that moves only when told to: for unit tests of the limiter and the ban. */
export function manualClock(start: number): Clock & { advance(ms: number): void } {
  let now = start;
  return {
    scale: 1,
    now: () => now,
    monotonic: () => now - start,
    sleep: (ms) => {
      now += ms;
      return Promise.resolve();
    },
    advance: (ms) => {
      now += ms;
    },
  };
}

export function makeKey(secret: string, plan: ApiKey['plan'], limits: ApiKey['limits']): ApiKey {
  return { secret, plan, limits, label: keyLabel(secret, plan), sacrificial: false };
}

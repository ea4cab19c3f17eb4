/**
 * The bench's one API key: an enterprise key with limits so high that neither the reference server's limiter
 * nor the suite's backoff policy ever holds a request back, so every figure measures throughput, not quota.
 * Its secret is made fresh for each bench run and handed to child processes in the environment; it is never
 * printed or written to a report (only its label is).
 */
import { randomBytes } from 'node:crypto';
import type { PlanLimits } from '../../src/api/plans.js';
import { keyLabel, type ApiKey } from '../../src/core/api-key.js';

export const BENCH_LIMITS: PlanLimits = Object.freeze({ perMinute: 1_000_000_000, perDay: 1_000_000_000_000 });

/** The environment variable that carries the secret to the bench's child processes. */
export const KEY_ENV = 'PETLOAD_BENCH_KEY';

export function newBenchSecret(): string {
  return `pl_bench_${randomBytes(18).toString('base64url')}`;
}

export function benchKey(secret: string): ApiKey {
  return Object.freeze({
    secret,
    plan: 'enterprise',
    limits: BENCH_LIMITS,
    label: keyLabel(secret, 'enterprise#1'),
    sacrificial: false,
  });
}

/** The key a child process was given in KEY_ENV. */
export function keyFromEnv(): ApiKey {
  const secret = process.env[KEY_ENV];
  if (secret === undefined || secret === '')
    throw new Error(`${KEY_ENV} is not set: this module runs as a child of bench/main.ts`);
  return benchKey(secret);
}

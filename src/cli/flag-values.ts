/**
 * The values of `petload run`'s number flags, each parsed from its text with one message naming the flag, what
 * it takes and what it found. Plain functions without zod: k8s-manifests.ts reads --timeout with them too.
 */
import { PetloadError } from '../core/errors.js';

const MAX_TIMEOUT_MS = 600_000;
const MAX_TIME_SCALE = 100_000;

/** --timeout: whole milliseconds, 1 to 10 minutes. */
export function parseTimeoutFlag(raw: string): number {
  const ms = /^\d+$/.test(raw.trim()) ? Number(raw) : NaN;
  if (!(ms >= 1 && ms <= MAX_TIMEOUT_MS)) {
    throw new PetloadError(
      'E_USAGE',
      `--timeout: expected a whole number of milliseconds from 1 to ${MAX_TIMEOUT_MS}, such as 10000, found ${JSON.stringify(raw)}`,
    );
  }
  return ms;
}

/** The longest round trip --rtt takes, real ms. */
export const MAX_RTT_MS = 10_000;

/** --rtt: the round trip to the target the schedule assumes, whole real milliseconds (0: loopback). */
export function parseRttFlag(raw: string): number {
  const ms = /^\d+$/.test(raw.trim()) ? Number(raw) : NaN;
  if (!(ms >= 0 && ms <= MAX_RTT_MS)) {
    throw new PetloadError(
      'E_USAGE',
      `--rtt: expected a whole number of milliseconds from 0 to ${MAX_RTT_MS}, such as 100, found ${JSON.stringify(raw)}`,
    );
  }
  return ms;
}

/** --time-scale: how many times faster than real time the embedded server's clock runs. */
export function parseTimeScaleFlag(raw: string): number {
  const n = /^\d+(\.\d+)?$/.test(raw.trim()) ? Number(raw) : NaN;
  if (!(n > 0 && n <= MAX_TIME_SCALE)) {
    throw new PetloadError(
      'E_USAGE',
      `--time-scale: expected a number above 0 and at most ${MAX_TIME_SCALE}, such as 60, found ${JSON.stringify(raw)}`,
    );
  }
  return n;
}

/** --ban-threshold: requests the embedded server tolerates inside one running Retry-After before it bans the key. */
export function parseBanThresholdFlag(raw: string): number {
  const n = /^\d+$/.test(raw.trim()) ? Number(raw) : NaN;
  if (!(n >= 0 && n <= 10_000))
    throw new PetloadError(
      'E_USAGE',
      `--ban-threshold: expected a whole number from 0 to 10000, such as 10, found ${JSON.stringify(raw)}`,
    );
  return n;
}

/** --ban-seconds: how long the embedded server's ban lasts, in seconds of its (possibly scaled) clock. */
export function parseBanSecondsFlag(raw: string): number {
  const n = /^\d+(\.\d+)?$/.test(raw.trim()) ? Number(raw) : NaN;
  if (!(n > 0 && n <= 86_400))
    throw new PetloadError(
      'E_USAGE',
      `--ban-seconds: expected a number of seconds above 0 and at most 86400, such as 900, found ${JSON.stringify(raw)}`,
    );
  return n;
}

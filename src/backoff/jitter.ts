/**
 * Full-jitter exponential backoff (the "Full Jitter" of AWS's "Exponential Backoff And Jitter"):
 * `random(0, min(cap, base * 2^attempt))`. Spreading retries over the whole interval keeps clients that were
 * refused together from coming back together.
 */

/**
 * The wait in ms before retry number `attempt` (0 after the first refusal, 1 after the second, ...).
 * `random` returns a number in [0, 1), like Math.random.
 */
export function fullJitter(attempt: number, baseMs: number, capMs: number, random: () => number = Math.random): number {
  // 2^attempt overflows to Infinity for a large attempt, and min(cap, Infinity) is the cap: no special case.
  const ceiling = Math.min(capMs, baseMs * 2 ** Math.max(0, attempt));
  return random() * ceiling;
}

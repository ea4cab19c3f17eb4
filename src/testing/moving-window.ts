/**
 * One key's answers from a sliding log as the `limits` library's moving window keeps one (Python's flask-limiter
 * and slowapi): the time of each accepted hit; a hit is accepted while fewer than the figure were accepted in the
 * trailing window (a refused one is not logged); Remaining = the figure less the hits of the trailing window; Reset =
 * when the oldest of them leaves it, in whole seconds (int(oldest) + window). For the limiter readers' tests.
 */
export interface LogAnswer {
  /** Seconds after t0, when the hit reached the log. */
  readonly at: number;
  readonly status: 200 | 429;
  readonly remaining: number;
  /** Unix seconds. */
  readonly reset: number;
}

/**
 * The answers to hits at `times` (seconds after `t0S`, Unix seconds, ascending), on a log of `limit` a window. The
 * hits whose indices `uncounted` holds are accepted and not logged: a server's defect (a decrement skipped).
 */
export function movingWindow(
  times: readonly number[],
  limit: number,
  t0S: number,
  uncounted: ReadonlySet<number> = new Set(),
  windowS = 60,
): LogAnswer[] {
  const hits: number[] = [];
  return times.map((at, i) => {
    while (hits.length > 0 && hits[0]! <= at - windowS) hits.shift();
    const accepted = hits.length < limit;
    if (accepted && !uncounted.has(i)) hits.push(at);
    return {
      at,
      status: accepted ? 200 : 429,
      remaining: limit - hits.length,
      reset: Math.floor(t0S + (hits[0] ?? at)) + windowS,
    };
  });
}

/** Hits in pairs `gapS` apart, a pair every `everyS`, from 0 up to `untilS` (exclusive) seconds. */
export function pairedTimes(everyS: number, gapS: number, untilS: number, fromS = 0): number[] {
  const times: number[] = [];
  for (let t = fromS; t < untilS; t += everyS) times.push(t, t + gapS);
  return times;
}

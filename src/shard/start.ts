/**
 * --start-at: every shard begins its phases at the same instant of real wall time (the machines' clocks are
 * taken to be synchronised, as NTP keeps a Kubernetes cluster's nodes to within milliseconds). A shard started
 * after that instant begins at once and says how late it was.
 */

/** Longest wait accepted: a --start-at further ahead is almost surely a mistake (a wrong date or zone). */
export const MAX_WAIT_MS = 24 * 3600 * 1000;

export interface StartOutcome {
  /** Real ms the shard began after --start-at (0 when it waited for it). */
  lateMs: number;
}

/** Waits (real time) until `startAt` (epoch ms) or until the signal aborts. */
export async function waitUntil(
  startAt: number,
  signal: AbortSignal | undefined,
  now: () => number = Date.now,
): Promise<StartOutcome> {
  // setTimeout may fire a little early or late; the loop makes sure the wait has really passed the instant.
  for (let left = startAt - now(); left > 0 && !signal?.aborted; left = startAt - now()) {
    await new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, Math.min(left, 2 ** 31 - 1));
      signal?.addEventListener('abort', done, { once: true });
    });
  }
  return { lateMs: Math.max(0, now() - startAt) };
}

/**
 * Time is injected. A Clock gives wall time (epoch ms, possibly scaled), monotonic time (ms) and sleeps.
 * A scaled clock runs `scale` times faster than real time: a wall-clock minute lasts 60/scale real seconds.
 * The reference server and the suite share one scaled clock so that Date, Reset and Retry-After stay true.
 */
export interface Clock {
  /** Wall time in epoch milliseconds, on this clock's (possibly scaled) time line. */
  now(): number;
  /** Monotonic milliseconds on this clock's time line (scaled like now()). */
  monotonic(): number;
  /** Sleep `ms` of this clock's time (i.e. ms/scale real milliseconds). Resolves early if the signal aborts. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
  /** How many times faster than real time this clock runs. */
  readonly scale: number;
}

function realSleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (ms <= 0 || signal?.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const onAbort = () => {
      clearTimeout(timer);
      resolve();
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** A clock running `scale` times faster than real time, starting from the real wall time now. */
export function createClock(scale = 1): Clock {
  if (!(scale > 0) || !Number.isFinite(scale))
    throw new RangeError(`time scale must be a positive number, got ${scale}`);
  const wallOrigin = Date.now();
  const monoOrigin = performance.now();
  return {
    scale,
    now: () => wallOrigin + (performance.now() - monoOrigin) * scale,
    monotonic: () => (performance.now() - monoOrigin) * scale,
    sleep: (ms, signal) => realSleep(ms / scale, signal),
  };
}

export const realClock: Clock = createClock(1);

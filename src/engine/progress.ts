/** The numbers of one progress line, fed by the engine to whatever shows progress (src/cli/progress.ts). */
export interface ProgressStats {
  /** What is running: a probe, or a load phase such as "phase 1 (constant-rate)". */
  phase: string;
  /** Run-clock ms elapsed, and in all (0 when the length is not known, as for a probe or a burst). */
  elapsedMs: number;
  totalMs: number;
  /** Requests sent so far. */
  sent: number;
  /** Requests per run-clock second, recently. */
  rate: number;
  s2xx: number;
  /** 4xx other than 429. */
  s4xx: number;
  s429: number;
  /** Latency p99 in real ms, null before the first response. */
  p99Ms: number | null;
}


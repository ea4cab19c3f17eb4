/** The executors (traffic shapes), by public name. */
export const EXECUTORS = {
  'constant-rate': 'Open model: a fixed arrival rate, paced on a monotonic clock',
  'ramping-rate': 'Open model: stages of {rate, duration}',
  concurrency: 'Closed model: N workers for a duration',
  burst: 'N simultaneous requests over N connections',
  saturate: 'Maximum throughput through autocannon, for capacity runs',
} as const;
export type ExecutorName = keyof typeof EXECUTORS;
export const EXECUTOR_NAMES = Object.keys(EXECUTORS) as ExecutorName[];

/** The part of redis-gcra (no types of its own) the GCRA store uses: its README's API. */
declare module 'redis-gcra' {
  interface LimitResult {
    limited: boolean;
    remaining: number;
    retryIn: number;
    resetIn: number;
  }
  interface Limiter {
    limit(o: { key: string; burst?: number; rate?: number; period?: number; cost?: number }): Promise<LimitResult>;
  }
  export default function RedisGCRA(o: {
    redis: unknown;
    keyPrefix?: string;
    burst?: number;
    rate?: number;
    period?: number;
    cost?: number;
  }): Limiter;
}

/**
 * The peer load generator: the plain autocannon CLI (node_modules/.bin/autocannon), as a user would run it,
 * pinned like every load generator of the bench. Its result comes from its own `--json` output, and its CPU
 * time over its measured window from /proc (./cpu-sampler.ts), read while it runs.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { type CpuSample, type CpuSampler, cpuOverWindow, sampleCpu } from './cpu-sampler.js';
import type { Pinning } from './processes.js';
import { runCommand } from './processes.js';

const BIN = fileURLToPath(new URL('../../node_modules/.bin/autocannon', import.meta.url));

export interface AutocannonOptions {
  /** Full URL of the one request, e.g. `http://127.0.0.1:PORT/v1/pets?limit=20`. */
  url: string;
  connections: number;
  durationS: number;
  /** `-R`: requests per second over all connections. */
  rate?: number;
  /**
   * `--warmup [ -c N -d S ]`: seconds of the same load, in the same process, before the measured `durationS`
   * (autocannon leaves them out of its result).
   */
  warmupS?: number;
  /** The bearer token to send (the bench key; autocannon takes headers only on its command line). */
  secret: string;
}

export interface AutocannonRun {
  requests: number;
  /** Real seconds autocannon says it ran. */
  durationS: number;
  /** Its measured window (after the warm-up), in epoch ms, as it reports it. */
  window: { from: number; to: number };
  requestsPerSecond: number;
  errors: number;
  non2xx: number;
  latencyMs: { p50: number; p99: number };
  /**
   * The process's CPU time over its measured window (after the warm-up), over the window's real time: near 1
   * when it had its core to itself and was the bottleneck; lower when it waited for the server (or its core was
   * shared). Null where /proc cannot be read.
   */
  cpuShare: number | null;
  /** Its CPU µs per request over the measured window; null where /proc cannot be read. */
  cpuMicrosPerRequest: number | null;
}

/** The fields of autocannon's JSON result the bench reads. */
interface AutocannonJson {
  requests: { total: number };
  duration: number;
  /** The measured window (the warm-up is before it), as ISO times. */
  start: string;
  finish: string;
  errors: number;
  timeouts: number;
  non2xx: number;
  latency: { p50: number; p99: number };
}

export async function runAutocannon(pin: Pinning, o: AutocannonOptions): Promise<AutocannonRun> {
  if (!existsSync(BIN)) throw new Error(`${BIN} is missing: run npm install`);
  const args = [
    '-c',
    String(o.connections),
    '-d',
    String(o.durationS),
    '-t',
    '10',
    '-j',
    '-H',
    `authorization=Bearer ${o.secret}`,
    '-H',
    'accept=application/json',
    '-H',
    'content-type=application/json',
    ...(o.rate === undefined ? [] : ['-R', String(o.rate)]),
    ...(o.warmupS !== undefined && o.warmupS > 0
      ? ['--warmup', '[', '-c', String(o.connections), '-d', String(o.warmupS), ']']
      : []),
    o.url,
  ];
  const [cmd, ...rest] = [...pin.load, BIN, ...args];
  let sampler: CpuSampler | undefined;
  let samples: CpuSample[] = [];
  let result: Awaited<ReturnType<typeof runCommand>>;
  try {
    result = await runCommand(cmd!, rest, {
      timeoutMs: (o.durationS + (o.warmupS ?? 0)) * 1000 + 60_000,
      onSpawn: (child) => {
        if (child.pid !== undefined) sampler = sampleCpu(child.pid);
      },
    });
  } finally {
    samples = sampler?.stop() ?? [];
  }
  const r = JSON.parse(result.stdout.trim().split('\n').pop() ?? '') as AutocannonJson;
  const window = { from: Date.parse(r.start), to: Date.parse(r.finish) };
  const cpu = cpuOverWindow(samples, window.from, window.to);
  return {
    window,
    requests: r.requests.total,
    durationS: r.duration,
    requestsPerSecond: r.duration > 0 ? r.requests.total / r.duration : 0,
    errors: r.errors + r.timeouts,
    non2xx: r.non2xx,
    latencyMs: { p50: r.latency.p50, p99: r.latency.p99 },
    cpuShare: cpu?.share ?? null,
    cpuMicrosPerRequest: cpu !== null && r.requests.total > 0 ? (cpu.cpuMs * 1000) / r.requests.total : null,
  };
}

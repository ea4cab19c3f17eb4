/**
 * Child process entry: the latency figure's peer client, a paced loop on bare node:http with nothing else in
 * the way. It sends `GET {url}/pets` at `perSecond` for `seconds` (after a warm-up at 1000/s, as petload's run
 * gets), waits for each arrival as petload's pacing does (a timer until 2 ms before, then setImmediate turns),
 * and measures each latency the same way, from the intended send time to the end of the body. What it reports
 * beyond the server's hold is what this machine adds to any client in the same minute: scheduling stalls of
 * either process, loopback, node's own HTTP stack. Its percentiles are exact (every sample is kept).
 */
import { Agent, request } from 'node:http';
import { emitResult } from '../lib/child-protocol.js';
import { KEY_ENV } from '../lib/key.js';
import { spread } from '../lib/stats.js';

export interface BareClientJob {
  url: string;
  perSecond: number;
  seconds: number;
  warmupS: number;
}

export interface BareClientResult {
  sent: number;
  failed: number;
  latencyMs: { p50: number; p99: number; max: number };
}

const SPIN_MS = 2;
const WARMUP_RATE = 1000;

const agent = new Agent({ keepAlive: true, maxSockets: 64 });
const headers = { accept: 'application/json', authorization: `Bearer ${process.env[KEY_ENV] ?? ''}` };

function get(url: string): Promise<boolean> {
  return new Promise((resolve) => {
    const req = request(url, { agent, headers }, (res) => {
      res.on('data', () => undefined);
      res.on('end', () => resolve(res.statusCode === 200));
      res.on('error', () => resolve(false));
    });
    req.setTimeout(10_000, () => req.destroy());
    req.on('error', () => resolve(false));
    req.end();
  });
}

async function sleepUntil(t: number): Promise<void> {
  for (;;) {
    const left = t - performance.now();
    if (left <= 0) return;
    await new Promise((resolve) => (left > SPIN_MS ? setTimeout(resolve, left - SPIN_MS) : setImmediate(resolve)));
  }
}

/** `count` requests at `perSecond` from now, each latency (ms from its intended time) into `out` when given. */
async function paced(url: string, perSecond: number, count: number, out: Float64Array | null): Promise<number> {
  const t0 = performance.now() + 10;
  const pending: Promise<void>[] = [];
  let failed = 0;
  for (let i = 0; i < count; i++) {
    const intended = t0 + (i * 1000) / perSecond;
    await sleepUntil(intended);
    pending.push(
      get(url).then((ok) => {
        if (!ok) failed++;
        if (out !== null) out[i] = performance.now() - intended;
      }),
    );
  }
  await Promise.all(pending);
  return failed;
}

const job = JSON.parse(process.argv[2] ?? '') as BareClientJob;
const url = `${job.url}/pets`;
if (job.warmupS > 0) await paced(url, WARMUP_RATE, Math.round(WARMUP_RATE * job.warmupS), null);
const n = Math.round(job.perSecond * job.seconds);
const latencies = new Float64Array(n);
const failed = await paced(url, job.perSecond, n, latencies);
agent.destroy();
emitResult({ sent: n, failed, latencyMs: spread(latencies) } satisfies BareClientResult);

/**
 * pacing accuracy: petload `constant-rate` at 1000/s, then the autocannon CLI with `-R 1000`, against one
 * bare list server that notes when each request arrives.
 *
 * petload runs after a warm-up (bench/load/petload.ts). Its own figures: the achieved rate (requests that
 * left within the 10 s, per second), and the send lag of every request (actual send − intended, on its own
 * clock).
 * autocannon reports no per-request send time, so both tools are also judged where they can be judged
 * alike, at the server: how far each arrival is from an evenly spaced schedule at the target rate
 * (anchored at the median offset). autocannon's `-R` is a budget per connection per second, spent as fast
 * as the connection allows and then waited out, so its arrivals come in bursts: its deviation shows how
 * far that is from pacing.
 */
import { row, type BenchEnv, type FigureResult } from '../figure.js';
import { runAutocannon, type AutocannonRun } from '../lib/autocannon-cli.js';
import { runNodeChild, startServerChild } from '../lib/processes.js';
import { scheduleDeviation } from '../lib/stats.js';
import type { PacingResult } from '../load/petload.js';

const RATE = 1000;

/** Requests per second between the first and the last arrival. */
function arrivalRate(arrivals: readonly number[]): number {
  if (arrivals.length < 2) return 0;
  const first = Math.min(...arrivals);
  const last = Math.max(...arrivals);
  return last > first ? ((arrivals.length - 1) * 1000) / (last - first) : 0;
}

export async function pacingFigure(env: BenchEnv): Promise<FigureResult> {
  const { options: o, pin, secret } = env;
  const capacity = Math.ceil(RATE * (o.pacingS + o.warmupS) * 1.5) + 1000;
  const server = await startServerChild(pin, { kind: 'list' }, secret);
  let p: PacingResult;
  let a: AutocannonRun;
  let petloadArrivals: number[];
  let acArrivals: number[];
  try {
    await server.record(capacity);
    p = await runNodeChild<PacingResult>(
      pin.load,
      'load/petload.ts',
      { kind: 'constant-rate', url: server.url, perSecond: RATE, seconds: o.pacingS, scale: 1, warmupS: o.warmupS },
      { timeoutMs: (o.pacingS + o.warmupS) * 1000 + 60_000, secret },
    );
    // The warm-up's requests came first: the measured ones are the last `sent`.
    petloadArrivals = (await server.collect()).arrivals.slice(-p.sent);
    await server.record(capacity);
    a = await runAutocannon(pin, {
      url: `${server.url}/pets?limit=20`,
      connections: o.connections,
      durationS: o.pacingS,
      rate: RATE,
      secret,
    });
    acArrivals = (await server.collect()).arrivals;
  } finally {
    await server.stop();
  }
  const petloadDev = scheduleDeviation(petloadArrivals, RATE);
  const acDev = scheduleDeviation(acArrivals, RATE);
  env.log(
    `pacing: petload ${p.achievedPerSecond.toFixed(1)}/s, lag p99 ${p.lagMs.p99.toFixed(3)} ms; autocannon -R ${a.requestsPerSecond.toFixed(1)}/s, arrival deviation p99 ${acDev.p99.toFixed(1)} ms`,
  );
  const acRate = {
    value: a.requestsPerSecond,
    unit: 'req/s',
    what: `autocannon -R ${RATE}, ${o.connections} connections (its requests / its duration)`,
  };
  return {
    id: 'pacing',
    rows: [
      row({
        figure: 'pacing accuracy: achieved rate',
        measured: {
          value: p.achievedPerSecond,
          unit: 'req/s',
          what: `petload constant-rate ${RATE}/s for ${o.pacingS} s after ${o.warmupS} s of warm-up: requests sent within it, per second`,
        },
        peer: acRate,
        score: { kind: 'error', value: (p.achievedPerSecond / RATE - 1) * 100, unit: '%' },
        goal: { kind: 'within', value: 1, unit: '%' },
      }),
      row({
        figure: 'pacing accuracy: send lag p99',
        measured: { value: p.lagMs.p99, unit: 'ms', what: 'actual send − intended send, per request' },
        peer: null,
        score: { kind: 'error', value: p.lagMs.p99, unit: 'ms' },
        goal: { kind: 'under', value: 2 },
      }),
      row({
        figure: 'pacing: arrival deviation p99 at the server',
        measured: { value: petloadDev.p99, unit: 'ms', what: 'petload arrivals vs an evenly spaced schedule' },
        peer: { value: acDev.p99, unit: 'ms', what: `autocannon -R ${RATE} arrivals vs the same schedule` },
        score: null,
        goal: { kind: 'report' },
      }),
    ],
    details: {
      rate: RATE,
      seconds: o.pacingS,
      petload: {
        ...p,
        serverArrivals: petloadArrivals.length,
        serverArrivalRate: arrivalRate(petloadArrivals),
        serverDeviationMs: petloadDev,
      },
      autocannon: {
        ...a,
        serverArrivals: acArrivals.length,
        serverArrivalRate: arrivalRate(acArrivals),
        serverDeviationMs: acDev,
      },
    },
  };
}

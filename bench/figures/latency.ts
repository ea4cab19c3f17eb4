/**
 * latency fidelity: a bare server that holds every answer exactly 20 ms, and petload `constant-rate` at
 * 100/s against it (after a warm-up): the p50 and p99 latency petload's metrics report, against 20 ms.
 * The server's own hold times are given alongside, to tell the server's share of an error from the client's.
 */
import { row, type BenchEnv, type FigureResult } from '../figure.js';
import { runNodeChild, startServerChild } from '../lib/processes.js';
import { spread } from '../lib/stats.js';
import type { PacingResult } from '../load/petload.js';

const HOLD_MS = 20;
const RATE = 100;
/** The warm-up's rate (bench/load/petload.ts): its requests are noted too. */
const WARMUP_RATE = 1000;

export async function latencyFigure(env: BenchEnv): Promise<FigureResult> {
  const { options: o, pin, secret } = env;
  const server = await startServerChild(pin, { kind: 'delay', ms: HOLD_MS }, secret);
  let p: PacingResult;
  let holds: number[];
  try {
    await server.record(Math.ceil((RATE * o.latencyS + WARMUP_RATE * o.warmupS) * 1.5) + 100);
    p = await runNodeChild<PacingResult>(pin.load, 'load/petload.ts', { kind: 'constant-rate', url: server.url, perSecond: RATE, seconds: o.latencyS, scale: 1, warmupS: o.warmupS }, { timeoutMs: (o.latencyS + o.warmupS) * 1000 + 60_000, secret });
    // The warm-up's requests came first: the measured ones are the last `sent`.
    holds = (await server.collect()).holds.slice(-p.sent);
  } finally {
    await server.stop();
  }
  const held = spread(holds);
  env.log(`latency: reported p50 ${p.latencyMs.p50} ms, p99 ${p.latencyMs.p99} ms; server held p50 ${held.p50.toFixed(3)} ms`);
  const what = `petload constant-rate ${RATE}/s for ${o.latencyS} s, reported by its metrics`;
  return {
    id: 'latency',
    rows: [
      row({
        figure: 'latency fidelity: p50',
        measured: { value: p.latencyMs.p50, unit: 'ms', what },
        peer: { value: held.p50, unit: 'ms', what: 'server hold p50 (request parsed → answer written)' },
        score: { kind: 'error', value: p.latencyMs.p50 - HOLD_MS, unit: 'ms' },
        goal: { kind: 'within', value: 1, unit: 'ms' },
      }),
      row({
        figure: 'latency fidelity: p99',
        measured: { value: p.latencyMs.p99, unit: 'ms', what },
        peer: { value: held.p99, unit: 'ms', what: 'server hold p99' },
        score: { kind: 'error', value: p.latencyMs.p99 - HOLD_MS, unit: 'ms' },
        goal: { kind: 'within', value: 3, unit: 'ms' },
      }),
    ],
    details: { holdMs: HOLD_MS, rate: RATE, seconds: o.latencyS, petload: p, serverHoldMs: held, serverRequests: holds.length },
  };
}

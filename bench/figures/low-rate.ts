/**
 * low-rate pacing: petload `constant-rate` at 60/min for 30 s of a 60x scaled clock (30 requests in half a
 * real second), several rounds, each in a fresh process after a warm-up. A round passes when every send
 * is within 5 real ms of its intended time, so a round's figure is its worst send lag; the table gives the
 * median round (a crowded machine can stall any one process for milliseconds), the details every round.
 */
import { row, type BenchEnv, type FigureResult } from '../figure.js';
import { runNodeChild, startServerChild } from '../lib/processes.js';
import { median } from '../lib/stats.js';
import type { PacingResult } from '../load/petload.js';

const SCALE = 60;
const PER_SECOND = 1;

export async function lowRateFigure(env: BenchEnv): Promise<FigureResult> {
  const { options: o, pin, secret } = env;
  const server = await startServerChild(pin, { kind: 'list' }, secret);
  const rounds: PacingResult[] = [];
  try {
    for (let i = 0; i < o.rounds; i++) {
      rounds.push(
        await runNodeChild<PacingResult>(
          pin.load,
          'load/petload.ts',
          {
            kind: 'constant-rate',
            url: server.url,
            perSecond: PER_SECOND,
            seconds: o.lowRateS,
            scale: SCALE,
            warmupS: o.warmupS,
          },
          { timeoutMs: o.warmupS * 1000 + 60_000, secret },
        ),
      );
    }
  } finally {
    await server.stop();
  }
  const worst = rounds.map((r) => r.lagMs.max);
  env.log(`low-rate pacing: worst send lag per round ${worst.map((w) => `${w.toFixed(2)} ms`).join(', ')}`);
  return {
    id: 'low-rate-pacing',
    rows: [
      row({
        figure: 'low-rate pacing: worst send lag of a run',
        measured: {
          value: median(worst),
          unit: 'ms',
          what: `60/min for ${o.lowRateS} s on a ${SCALE}x clock, median of ${rounds.length} rounds' worst, real ms`,
        },
        peer: null,
        score: { kind: 'error', value: median(worst), unit: 'ms' },
        goal: { kind: 'under', value: 5 },
      }),
    ],
    details: { perMinute: PER_SECOND * 60, runClockSeconds: o.lowRateS, scale: SCALE, rounds },
  };
}

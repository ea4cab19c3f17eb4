/**
 * The in-process figures, each in a child process pinned like a load generator: memory (RSS growth over
 * 1 000 000 exchanges through the passive checks and the metrics, collected with --expose-gc) and check
 * cost (microseconds per exchange of the passive checks, and of the metrics alongside).
 */
import { row, type BenchEnv, type FigureResult } from '../figure.js';
import { runNodeChild } from '../lib/processes.js';
import type { CheckCostJob, CheckCostResult } from '../in-process/check-cost.js';
import type { MemoryJob, MemoryResult } from '../in-process/memory.js';

/** Generous: about 12 µs per exchange on this project's machine, plus start-up. */
const timeoutFor = (exchanges: number) => 60_000 + exchanges / 20;

export async function memoryFigure(env: BenchEnv): Promise<FigureResult> {
  const { options: o, pin, secret } = env;
  const job: MemoryJob = { exchanges: o.exchanges };
  const m = await runNodeChild<MemoryResult>(pin.load, 'in-process/memory.ts', job, {
    timeoutMs: timeoutFor(o.exchanges),
    secret,
    nodeArgs: ['--expose-gc'],
  });
  env.log(
    `memory: ${o.exchanges} exchanges, RSS +${m.growthMB.toFixed(1)} MB (+${m.growthAfterWarmMB.toFixed(1)} MB after the first tenth)`,
  );
  return {
    id: 'memory',
    rows: [
      row({
        figure: 'memory: RSS growth',
        measured: {
          value: m.growthMB,
          unit: 'MB',
          what: `${o.exchanges} exchanges through checks + metrics, after gc`,
        },
        peer: null,
        score: null,
        goal: { kind: 'under', value: 50 },
      }),
    ],
    details: { ...m },
  };
}

export async function checkCostFigure(env: BenchEnv): Promise<FigureResult> {
  const { options: o, pin, secret } = env;
  const job: CheckCostJob = { exchanges: o.checkCostExchanges, passes: o.checkCostPasses };
  const c = await runNodeChild<CheckCostResult>(pin.load, 'in-process/check-cost.ts', job, {
    timeoutMs: timeoutFor(job.exchanges * (job.passes + 1)),
    secret,
  });
  env.log(
    `check cost: ${c.observeMicros.median.toFixed(2)} µs per exchange (metrics ${c.recordMicros.median.toFixed(2)} µs)`,
  );
  return {
    id: 'check-cost',
    rows: [
      row({
        figure: 'check cost',
        measured: {
          value: c.observeMicros.median,
          unit: 'µs/exchange',
          what: `every passive check, 200 listPets of 20 animals, median of ${job.passes} passes of ${job.exchanges}`,
        },
        peer: { value: c.recordMicros.median, unit: 'µs/exchange', what: 'metrics.record on the same exchanges' },
        score: null,
        goal: { kind: 'report' },
      }),
    ],
    details: { ...c },
  };
}

/**
 * saturate vs autocannon, and checked throughput: the autocannon CLI, petload `saturate` and petload
 * `concurrency` (every passive check on) take turns against one bare list server, for the same duration and
 * connections, round after round (every other round in the reverse order), so that each ratio compares runs
 * seconds apart. Each first runs the same load for a second in the same process, left out of its figure, so
 * that the rounds compare steady states rather than how fast each tool's code compiles. The table gives the median of the rounds' ratios; the details keep
 * every run, with petload's CPU time per request (a figure a crowded machine disturbs far less than requests per
 * second) and its share of time in GC.
 */
import { row, type BenchEnv, type FigureResult } from '../figure.js';
import { runAutocannon, type AutocannonRun } from '../lib/autocannon-cli.js';
import { runNodeChild, startServerChild } from '../lib/processes.js';
import { median } from '../lib/stats.js';
import type { LoadJob, ThroughputResult } from '../load/petload.js';

/** Real seconds each load generator warms up for before its measured window (at most `--warmup`). */
const LOAD_WARMUP_S = 1;

interface Round {
  round: number;
  autocannon: AutocannonRun;
  saturate?: ThroughputResult;
  concurrency?: ThroughputResult;
}

function describe(r: ThroughputResult): string {
  return `${Math.round(r.requestsPerSecond)}/s (${r.cpuMicrosPerRequest.toFixed(1)} µs CPU each, CPU share ${r.cpuShare.toFixed(2)}, GC ${(100 * r.gcShare).toFixed(1)} %)`;
}

export async function throughputFigures(
  env: BenchEnv,
  want: { saturate: boolean; checked: boolean },
): Promise<FigureResult[]> {
  const { options: o, pin, secret } = env;
  // Each load generator first runs the same load in the same process for a second: the rounds compare steady states.
  const warmupS = Math.min(o.warmupS, LOAD_WARMUP_S);
  const petload = (job: LoadJob) =>
    runNodeChild<ThroughputResult>(pin.load, 'load/petload.ts', job, {
      timeoutMs: (o.durationS + warmupS) * 1000 + 60_000,
      secret,
    });
  const server = await startServerChild(pin, { kind: 'list' }, secret);
  const rounds: Round[] = [];
  try {
    // The server answers a warm-up first, so that the first round does not measure its JIT's progress.
    if (o.warmupS > 0)
      await runAutocannon(pin, {
        url: `${server.url}/pets?limit=20`,
        connections: o.connections,
        durationS: o.warmupS,
        secret,
      });
    for (let round = 1; round <= o.rounds; round++) {
      const r: Partial<Round> & { round: number } = { round };
      const steps: Array<() => Promise<void>> = [
        async () => {
          r.autocannon = await runAutocannon(pin, {
            url: `${server.url}/pets?limit=20`,
            connections: o.connections,
            durationS: o.durationS,
            warmupS,
            secret,
          });
        },
        async () => {
          if (want.saturate)
            r.saturate = await petload({
              kind: 'saturate',
              url: server.url,
              connections: o.connections,
              seconds: o.durationS,
              warmupS,
            });
        },
        async () => {
          if (want.checked)
            r.concurrency = await petload({
              kind: 'concurrency',
              url: server.url,
              workers: o.connections,
              seconds: o.durationS,
              warmupS,
            });
        },
      ];
      // Every other round runs the tools in the reverse order, so that a machine that slows down or speeds up
      // over a round favours each side of a ratio equally often.
      for (const step of round % 2 === 1 ? steps : steps.reverse()) await step();
      if (r.autocannon === undefined) throw new Error('the autocannon run of a round is missing');
      rounds.push({ ...r, autocannon: r.autocannon });
      env.log(
        `throughput round ${round}/${o.rounds}: autocannon ${Math.round(r.autocannon.requestsPerSecond)}/s` +
          (r.saturate ? `, saturate ${describe(r.saturate)}` : '') +
          (r.concurrency ? `, concurrency+checks ${describe(r.concurrency)}` : ''),
      );
    }
  } finally {
    await server.stop();
  }
  const peer = {
    value: median(rounds.map((r) => r.autocannon.requestsPerSecond)),
    unit: 'req/s',
    what: `autocannon CLI, ${o.connections} connections, ${o.durationS} s`,
  };
  const figure = (
    id: 'saturate' | 'checked-throughput',
    of: (r: Round) => ThroughputResult,
    label: string,
    what: string,
    goal: number,
  ): FigureResult => {
    const ratios = rounds.map((r) => of(r).requestsPerSecond / r.autocannon.requestsPerSecond);
    return {
      id,
      rows: [
        row({
          figure: label,
          measured: { value: median(rounds.map((r) => of(r).requestsPerSecond)), unit: 'req/s', what },
          peer,
          score: { kind: 'ratio', value: median(ratios), unit: '' },
          goal: { kind: 'at-least', value: goal },
        }),
      ],
      details: {
        connections: o.connections,
        durationS: o.durationS,
        warmupS,
        ratios,
        cpuMicrosPerRequest: rounds.map((r) => of(r).cpuMicrosPerRequest),
        gcShare: rounds.map((r) => of(r).gcShare),
        rounds,
      },
    };
  };
  const out: FigureResult[] = [];
  if (want.saturate)
    out.push(
      figure(
        'saturate',
        (r) => r.saturate!,
        'saturate vs autocannon',
        `petload saturate, ${o.connections} connections`,
        0.9,
      ),
    );
  if (want.checked) {
    out.push(
      figure(
        'checked-throughput',
        (r) => r.concurrency!,
        'checked throughput',
        `petload concurrency, ${o.connections} workers, every passive check`,
        0.5,
      ),
    );
  }
  return out;
}

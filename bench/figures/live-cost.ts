/**
 * What `--live` and `--metrics-port` cost a run: checked throughput (petload `concurrency`, every passive check,
 * the load of the checked-throughput figure, bench/load/petload.ts) with the run's event stream going to the live
 * page and the metrics endpoint (both listening on free loopback ports, nobody reading them), as a ratio to the
 * same load with neither. Off and on take turns against one bare list server, round after round (every other
 * round on first), each after its own warm-up in the same process, so that each ratio compares runs seconds
 * apart. A round counts only when both runs had their core (the counting rule of throughput.ts); the table gives
 * the median ratio of the counted rounds, and each side's CPU time per request.
 */
import { row, type BenchEnv, type FigureResult, type Row } from '../figure.js';
import { runAutocannon } from '../lib/autocannon-cli.js';
import { cpuOverWindow, sampleCpu, type CpuSampler } from '../lib/cpu-sampler.js';
import { runNodeChild, startServerChild } from '../lib/processes.js';
import { median } from '../lib/stats.js';
import type { LoadJob, ThroughputResult } from '../load/petload.js';
import { generatorVerdict, leftOut, MIN_LOAD_CPU_SHARE, type RoundVerdict } from './throughput.js';

/** Real seconds each side warms up for before its measured window (at most `--warmup`), as in throughput.ts. */
const LOAD_WARMUP_S = 1;
/** With the live page and the metrics endpoint on, at least this share of the throughput without them. */
const GOAL_RATIO = 0.95;

type Side = 'off' | 'on';

interface Round {
  round: number;
  off: ThroughputResult;
  on: ThroughputResult;
  /** The server's CPU share over each side's measured window (null: could not be read). */
  serverCpuShare: Record<Side, number | null>;
  verdict: RoundVerdict;
}

async function runRound(env: BenchEnv, url: string, serverCpu: CpuSampler | undefined, round: number) {
  const { options: o, pin, secret } = env;
  const warmupS = Math.min(o.warmupS, LOAD_WARMUP_S);
  const side = (live: boolean) => {
    const job: LoadJob = { kind: 'concurrency', url, workers: o.connections, seconds: o.durationS, warmupS, live };
    return runNodeChild<ThroughputResult>(pin.load, 'load/petload.ts', job, {
      timeoutMs: (o.durationS + warmupS) * 1000 + 60_000,
      secret,
    });
  };
  const r: Partial<Record<Side, ThroughputResult>> = {};
  const order: Side[] = round % 2 === 1 ? ['off', 'on'] : ['on', 'off'];
  for (const s of order) r[s] = await side(s === 'on');
  const off = r.off!;
  const on = r.on!;
  const samples = serverCpu?.samples() ?? [];
  const share = (t: ThroughputResult) => cpuOverWindow(samples, t.window.from, t.window.to)?.share ?? null;
  const serverCpuShare = { off: share(off), on: share(on) };
  const verdict =
    [generatorVerdict(off.cpuShare, serverCpuShare.off), generatorVerdict(on.cpuShare, serverCpuShare.on)].find(
      (v) => v !== 'counted',
    ) ?? 'counted';
  const fmt = (t: ThroughputResult) =>
    `${Math.round(t.requestsPerSecond)}/s (${t.cpuMicrosPerRequest.toFixed(1)} µs CPU each, CPU share ${t.cpuShare.toFixed(2)})`;
  env.log(
    `live-cost round ${round}/${o.rounds}: off ${fmt(off)}, on ${fmt(on)}, ratio ${(on.requestsPerSecond / off.requestsPerSecond).toFixed(3)}` +
      (verdict === 'counted' ? '' : `: ${verdict}, not counted`),
  );
  return { round, off, on, serverCpuShare, verdict } satisfies Round;
}

/** Every round against one bare list server that first answers autocannon for `--warmup`. */
async function runRounds(env: BenchEnv): Promise<Round[]> {
  const { options: o, pin, secret } = env;
  const server = await startServerChild(pin, { kind: 'list' }, secret);
  const serverCpu = server.pid === undefined ? undefined : sampleCpu(server.pid);
  const rounds: Round[] = [];
  try {
    if (o.warmupS > 0)
      await runAutocannon(pin, {
        url: `${server.url}/pets?limit=20`,
        connections: o.connections,
        durationS: o.warmupS,
        secret,
      });
    for (let round = 1; round <= o.rounds; round++) rounds.push(await runRound(env, server.url, serverCpu, round));
  } finally {
    serverCpu?.stop();
    await server.stop();
  }
  return rounds;
}

function rows(rounds: readonly Round[], o: BenchEnv['options']): Row[] {
  const counted = rounds.filter((r) => r.verdict === 'counted');
  const basis = counted.length > 0 ? counted : rounds;
  const what = `petload concurrency, ${o.connections} workers, every passive check`;
  const measured = {
    value: median(basis.map((r) => r.on.requestsPerSecond)),
    unit: 'req/s',
    what: `${what}, --live and --metrics-port`,
  };
  const peer = { value: median(basis.map((r) => r.off.requestsPerSecond)), unit: 'req/s', what: `${what}, neither` };
  const verdicts = rounds.map((r) => r.verdict);
  const note =
    counted.length === rounds.length ? '' : ` (${counted.length} of ${rounds.length} rounds; ${leftOut(verdicts)})`;
  const ratioRow =
    counted.length === 0
      ? row({
          figure: `live cost: not judged, no round counted (${leftOut(verdicts)})`,
          measured,
          peer,
          score: null,
          goal: { kind: 'report' },
        })
      : row({
          figure: `live cost: checked throughput with --live --metrics-port${note}`,
          measured,
          peer,
          score: {
            kind: 'ratio',
            value: median(counted.map((r) => r.on.requestsPerSecond / r.off.requestsPerSecond)),
            unit: '',
          },
          goal: { kind: 'at-least', value: GOAL_RATIO },
        });
  const cpuRow = row({
    figure: `live cost: CPU per request${counted.length > 0 ? '' : ' (rounds not counted)'}`,
    measured: {
      value: median(basis.map((r) => r.on.cpuMicrosPerRequest)),
      unit: 'µs',
      what: `${measured.what}: CPU time per request`,
    },
    peer: {
      value: median(basis.map((r) => r.off.cpuMicrosPerRequest)),
      unit: 'µs',
      what: `${peer.what}: CPU time per request`,
    },
    // Off's over on's, like the throughput figures' CPU rows (below 1: the live page and the metrics cost CPU).
    score: {
      kind: 'ratio',
      value: median(basis.map((r) => r.off.cpuMicrosPerRequest / r.on.cpuMicrosPerRequest)),
      unit: '',
    },
    goal: { kind: 'report' },
  });
  return [ratioRow, cpuRow];
}

export async function liveCostFigure(env: BenchEnv): Promise<FigureResult> {
  const o = env.options;
  const rounds = await runRounds(env);
  return {
    id: 'live-cost',
    rows: rows(rounds, o),
    details: {
      connections: o.connections,
      durationS: o.durationS,
      warmupS: Math.min(o.warmupS, LOAD_WARMUP_S),
      minLoadCpuShare: MIN_LOAD_CPU_SHARE,
      goalRatio: GOAL_RATIO,
      ratios: rounds.map((r) => r.on.requestsPerSecond / r.off.requestsPerSecond),
      verdicts: rounds.map((r) => r.verdict),
      cpuShare: rounds.map((r) => ({ off: r.off.cpuShare, on: r.on.cpuShare })),
      serverCpuShare: rounds.map((r) => r.serverCpuShare),
      cpuMicrosPerRequest: rounds.map((r) => ({ off: r.off.cpuMicrosPerRequest, on: r.on.cpuMicrosPerRequest })),
      rounds,
    },
  };
}

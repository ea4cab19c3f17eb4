/**
 * What `--live` and `--metrics-port` cost a run: checked throughput (petload `concurrency`, every passive check,
 * the load of the checked-throughput figure) with the run's event stream going to the live page and the metrics
 * endpoint (listening on free loopback ports, nobody reading them), as a ratio to the same load with neither.
 *
 * The effect is small (the sinks take a fraction of a microsecond of the forty or so a checked request costs)
 * and this machine's speed moves by more than that from one second to the next: separate runs, or segments of a
 * few seconds, measured the machine more than the sinks (ratios from 0.75 to 1.5 in one bench run). So one
 * process (bench/load/petload.ts, `live-slices`) runs one phase against one list server (as the throughput rounds') and relays the run's
 * events to the sinks in every other slice of SLICE_MS, as the CLI relays each run's events to its sinks; each
 * slice with the sinks is compared with the mean of the slices on either side of it, which also cancels a steady
 * drift. A triple counts only when the load generator had its core in all three (the counting rule of
 * throughput.ts); the table gives the median ratio of the counted triples, and each side's CPU time per request.
 * The phase lasts `--duration` x `--rounds` x 2 seconds (30 s by default: some 60 triples).
 */
import { row, type BenchEnv, type FigureResult, type Row } from '../figure.js';
import { runNodeChild } from '../lib/processes.js';
import { median } from '../lib/stats.js';
import type { LiveSlice, LiveSlicesResult, LoadJob } from '../load/petload.js';
import { generatorVerdict, leftOut, MIN_LOAD_CPU_SHARE, type RoundVerdict, withListServer } from './throughput.js';

/** Real seconds of warm-up (slices too) before the measured phase (at most `--warmup`). */
const LOAD_WARMUP_S = 1;
/** With the live page and the metrics endpoint on, at least this share of the throughput without them. */
const GOAL_RATIO = 0.95;
/** Real ms of each slice. */
const SLICE_MS = 250;
/** Real seconds the phase lasts at the least, whatever `--duration` says: some five triples, so that a busy machine's
 * stalled slice (no request in 250 ms) does not leave the figure without one. */
const MIN_SECONDS = 3;

/** A slice with the sinks and the slices without them on either side. */
interface Pair {
  pair: number;
  on: SliceFigures;
  /** The mean of the two neighbours. */
  off: SliceFigures;
  verdict: RoundVerdict;
}

interface SliceFigures {
  requestsPerSecond: number;
  cpuMicrosPerRequest: number;
}

const figures = (s: LiveSlice): SliceFigures => ({
  requestsPerSecond: (s.requests * 1000) / s.ms,
  cpuMicrosPerRequest: s.cpuMicros / s.requests,
});

/** The measured phase's slices against the warm list server, with the server's CPU share over a slice. */
function runSlices(env: BenchEnv): Promise<{ slices: LiveSlice[]; serverShare: (s: LiveSlice) => number | null }> {
  const { options: o, pin, secret } = env;
  return withListServer(env, async (url, serverShare) => {
    const seconds = Math.max(MIN_SECONDS, o.durationS * Math.max(1, o.rounds) * 2);
    const warmupS = Math.min(o.warmupS, LOAD_WARMUP_S);
    const job: LoadJob = { kind: 'live-slices', url, workers: o.connections, seconds, sliceMs: SLICE_MS, warmupS };
    env.log(`live-cost: ${seconds} s of checked throughput, the live sinks on in every other ${SLICE_MS} ms slice`);
    const { slices } = await runNodeChild<LiveSlicesResult>(pin.load, 'load/petload.ts', job, {
      timeoutMs: (seconds + warmupS) * 1000 + 60_000,
      secret,
    });
    return { slices, serverShare };
  });
}

/** Each slice with the sinks between two without them, against their mean. */
function pairsOf(slices: readonly LiveSlice[], serverShare: (s: LiveSlice) => number | null): Pair[] {
  const pairs: Pair[] = [];
  for (let i = 1; i + 1 < slices.length; i++) {
    const [before, on, after] = [slices[i - 1]!, slices[i]!, slices[i + 1]!];
    if (!on.on || before.on || after.on || on.requests === 0 || before.requests === 0 || after.requests === 0) continue;
    const [b, a] = [figures(before), figures(after)];
    const verdict =
      [before, on, after]
        .map((s) => generatorVerdict(s.cpuMicros / 1000 / s.ms, serverShare(s)))
        .find((v) => v !== 'counted') ?? 'counted';
    pairs.push({
      pair: pairs.length + 1,
      on: figures(on),
      off: {
        requestsPerSecond: (b.requestsPerSecond + a.requestsPerSecond) / 2,
        cpuMicrosPerRequest: (b.cpuMicrosPerRequest + a.cpuMicrosPerRequest) / 2,
      },
      verdict,
    });
  }
  return pairs;
}

function rows(pairs: readonly Pair[], o: BenchEnv['options']): Row[] {
  const counted = pairs.filter((r) => r.verdict === 'counted');
  const basis = counted.length > 0 ? counted : pairs;
  const what = `petload concurrency, ${o.connections} workers, every passive check`;
  const measured = {
    value: median(basis.map((r) => r.on.requestsPerSecond)),
    unit: 'req/s',
    what: `${what}, --live and --metrics-port`,
  };
  const peer = { value: median(basis.map((r) => r.off.requestsPerSecond)), unit: 'req/s', what: `${what}, neither` };
  const verdicts = pairs.map((r) => r.verdict);
  const note =
    counted.length === pairs.length ? '' : ` (${counted.length} of ${pairs.length} slices; ${leftOut(verdicts)})`;
  const ratioRow =
    counted.length === 0
      ? row({
          figure: `live cost: not judged, no slice counted (${leftOut(verdicts)})`,
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
    figure: `live cost: CPU per request${counted.length > 0 ? '' : ' (slices not counted)'}`,
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
  const { slices, serverShare } = await runSlices(env);
  const pairs = pairsOf(slices, serverShare);
  const counted = pairs.filter((p) => p.verdict === 'counted');
  env.log(
    `live-cost: ${pairs.length} slices with the sinks (${counted.length} counted), ratios ${pairs.map((p) => (p.on.requestsPerSecond / p.off.requestsPerSecond).toFixed(2)).join(' ')}`,
  );
  return {
    id: 'live-cost',
    rows: rows(pairs, o),
    details: {
      connections: o.connections,
      sliceMs: SLICE_MS,
      warmupS: Math.min(o.warmupS, LOAD_WARMUP_S),
      minLoadCpuShare: MIN_LOAD_CPU_SHARE,
      goalRatio: GOAL_RATIO,
      ratios: pairs.map((r) => r.on.requestsPerSecond / r.off.requestsPerSecond),
      verdicts: pairs.map((r) => r.verdict),
      pairs,
      slices: slices.map((s) => ({ ...s, serverCpuShare: serverShare(s) })),
    },
  };
}

/**
 * The bench's command line (node:util parseArgs; yargs belongs to the suite's CLI). Defaults keep a whole
 * `npm run bench` under about three minutes on two cores; the flags lengthen or narrow it.
 */
import { parseArgs } from 'node:util';
import { FIGURE_IDS, type FigureId } from './figure-ids.js';

export const PEER_SERVERS = ['nginx', 'node'] as const;
export type PeerServer = (typeof PEER_SERVERS)[number];

export interface BenchOptions {
  /** Figures to run, in the bench's order; all by default. */
  only: readonly FigureId[];
  /** Real seconds of each throughput measurement (saturate, checked throughput, reference server). */
  durationS: number;
  /** Rounds of each throughput comparison; the table gives the median. */
  rounds: number;
  /** Connections (autocannon, saturate) and workers (concurrency). */
  connections: number;
  /** Real seconds of the pacing-accuracy runs at 1000/s (the figure is 10 s). */
  pacingS: number;
  /** Real seconds of the latency-fidelity run at 100/s. */
  latencyS: number;
  /** Run-clock seconds of the low-rate pacing runs at 60/min on a 60x clock (the figure is 30 s). */
  lowRateS: number;
  /** Real seconds of warm-up: of each server before the throughput rounds, of petload (1000 requests/s) before each pacing and latency run. */
  warmupS: number;
  /** Exchanges recorded by the memory figure (the figure is 1 000 000). */
  exchanges: number;
  /** Exchanges per pass, and passes, of the check-cost figure. */
  checkCostExchanges: number;
  checkCostPasses: number;
  /** Runs of each command per round of the CLI start figure. */
  cliStartRunsPerRound: number;
  /** Drift figure: real seconds of each of its two runs, repetitions of compare and of its rendering, nightly reports of the trend. */
  driftRunS: number;
  driftRepetitions: number;
  trendReports: number;
  /** Long-run figure: the marks (hours of the simulated run, ascending) and the exchanges per simulated second. */
  longRunHours: readonly number[];
  longRunRate: number;
  /** Where the JSON report goes. */
  outDir: string;
  /** Pin load generators and servers to different cores when possible. */
  pin: boolean;
  /**
   * The list server of the throughput rounds and of live cost: Debian's nginx answering from memory (far faster than
   * any load generator here), or the bare node:http peer (about autocannon's speed: rounds turn server-bound).
   */
  peerServer: PeerServer;
  /** far: how many times faster than real time the reference server's clock runs (1: a real clock). */
  farScale: number;
  /** far: the relay's round trip, ms of the run clock (real ms: this over farScale). */
  farRttMs: number;
  /** Also run the real-clock compliance figure (about 5 real minutes); alone unless --only names others. */
  realClock: boolean;
}

export const DEFAULT_OPTIONS: BenchOptions = Object.freeze({
  only: FIGURE_IDS,
  durationS: 3,
  rounds: 5,
  connections: 10,
  pacingS: 10,
  latencyS: 5,
  lowRateS: 30,
  warmupS: 3,
  exchanges: 1_000_000,
  checkCostExchanges: 20_000,
  checkCostPasses: 10,
  cliStartRunsPerRound: 5,
  driftRunS: 5,
  driftRepetitions: 10,
  trendReports: 365,
  longRunHours: [1, 24],
  longRunRate: 50,
  farScale: 4,
  farRttMs: 100,
  outDir: 'reports/bench',
  pin: true,
  peerServer: 'nginx',
  realClock: false,
});

export const USAGE = `usage: npm run bench -- [options]
  --only <figure>         run one figure (repeat or comma-separate for several): ${FIGURE_IDS.join(', ')}
  --duration <s>          seconds of each throughput measurement (default ${DEFAULT_OPTIONS.durationS})
  --rounds <n>            rounds of each comparison, median reported (default ${DEFAULT_OPTIONS.rounds})
  --connections <n>       connections / workers (default ${DEFAULT_OPTIONS.connections})
  --pacing-duration <s>   seconds of the 1000/s pacing runs (default ${DEFAULT_OPTIONS.pacingS})
  --latency-duration <s>  seconds of the latency run at 100/s (default ${DEFAULT_OPTIONS.latencyS})
  --low-rate-duration <s> run-clock seconds of the 60/min pacing runs at 60x (default ${DEFAULT_OPTIONS.lowRateS})
  --warmup <s>            seconds of warm-up of servers and of pacing runs (default ${DEFAULT_OPTIONS.warmupS}; 0: none)
  --exchanges <n>         exchanges of the memory figure (default ${DEFAULT_OPTIONS.exchanges})
  --far-scale <n>         far: the reference server's clock speed (default ${DEFAULT_OPTIONS.farScale}; 1: a real clock, about 5 min)
  --far-rtt <ms>          far: the relay's round trip, ms of that clock (default ${DEFAULT_OPTIONS.farRttMs})
  --out <dir>             directory of the JSON report (default ${DEFAULT_OPTIONS.outDir})
  --no-pin                do not pin processes to cores
  --peer-server <name>    list server of the throughput and live-cost rounds: nginx (default; Debian's, answering
                          from memory) or node (the bare node:http peer, about as fast as autocannon)
  --real-clock            the compliance pass against a real-clock reference server, three keys per plan and one
                          (about 5 real minutes), in windows against the physical limit of 2; alone unless --only
  --help                  this text`;

export class UsageError extends Error {}

function numberFlag(
  name: string,
  text: string | undefined,
  fallback: number,
  o: { integer?: boolean; zero?: boolean } = {},
): number {
  if (text === undefined) return fallback;
  const n = Number(text);
  if (!Number.isFinite(n) || n < 0 || (n === 0 && o.zero !== true) || (o.integer === true && !Number.isInteger(n))) {
    const what = `${o.zero === true ? 'non-negative' : 'positive'} ${o.integer === true ? 'integer' : 'number'}`;
    throw new UsageError(`--${name} expects a ${what}, found ${JSON.stringify(text)}`);
  }
  return n;
}

/** The flags as node:util parses them; a bad flag is a UsageError. */
function parseFlags(argv: readonly string[]) {
  try {
    return parseArgs({
      args: [...argv],
      strict: true,
      allowPositionals: false,
      options: {
        only: { type: 'string', multiple: true },
        duration: { type: 'string' },
        rounds: { type: 'string' },
        connections: { type: 'string' },
        'pacing-duration': { type: 'string' },
        'latency-duration': { type: 'string' },
        'low-rate-duration': { type: 'string' },
        warmup: { type: 'string' },
        exchanges: { type: 'string' },
        out: { type: 'string' },
        'far-scale': { type: 'string' },
        'far-rtt': { type: 'string' },
        'no-pin': { type: 'boolean' },
        'peer-server': { type: 'string' },
        'real-clock': { type: 'boolean' },
        help: { type: 'boolean' },
      },
    }).values;
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
}

/** Options from argv (without node and the script); null when --help was asked for. */
export function parseOptions(argv: readonly string[]): BenchOptions | null {
  const parsed = parseFlags(argv);
  if (parsed.help === true) return null;
  const d = DEFAULT_OPTIONS;
  const realClock = parsed['real-clock'] === true;
  let only: readonly FigureId[] = realClock ? [] : d.only;
  if (parsed.only !== undefined) {
    const names = parsed.only
      .flatMap((s) => s.split(','))
      .map((s) => s.trim())
      .filter((s) => s !== '');
    const unknown = names.filter((n) => !(FIGURE_IDS as readonly string[]).includes(n));
    if (unknown.length > 0)
      throw new UsageError(
        `unknown figure ${unknown.map((n) => JSON.stringify(n)).join(', ')}; expected one of ${FIGURE_IDS.join(', ')}`,
      );
    only = FIGURE_IDS.filter((id) => names.includes(id));
  }
  const peerServer = parsed['peer-server'] ?? d.peerServer;
  if (!(PEER_SERVERS as readonly string[]).includes(peerServer))
    throw new UsageError(
      `--peer-server expects one of ${PEER_SERVERS.join(', ')}, found ${JSON.stringify(peerServer)}`,
    );
  return {
    only,
    durationS: numberFlag('duration', parsed.duration, d.durationS),
    rounds: numberFlag('rounds', parsed.rounds, d.rounds, { integer: true }),
    connections: numberFlag('connections', parsed.connections, d.connections, { integer: true }),
    pacingS: numberFlag('pacing-duration', parsed['pacing-duration'], d.pacingS),
    latencyS: numberFlag('latency-duration', parsed['latency-duration'], d.latencyS),
    lowRateS: numberFlag('low-rate-duration', parsed['low-rate-duration'], d.lowRateS),
    warmupS: numberFlag('warmup', parsed.warmup, d.warmupS, { zero: true }),
    exchanges: numberFlag('exchanges', parsed.exchanges, d.exchanges, { integer: true }),
    checkCostExchanges: d.checkCostExchanges,
    checkCostPasses: d.checkCostPasses,
    cliStartRunsPerRound: d.cliStartRunsPerRound,
    driftRunS: d.driftRunS,
    driftRepetitions: d.driftRepetitions,
    trendReports: d.trendReports,
    longRunHours: d.longRunHours,
    longRunRate: d.longRunRate,
    farScale: numberFlag('far-scale', parsed['far-scale'], d.farScale),
    farRttMs: numberFlag('far-rtt', parsed['far-rtt'], d.farRttMs),
    outDir: parsed.out ?? d.outDir,
    pin: parsed['no-pin'] !== true,
    peerServer: peerServer as PeerServer,
    realClock,
  };
}

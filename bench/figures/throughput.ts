/**
 * saturate vs autocannon, and checked throughput: the autocannon CLI, petload `saturate` and petload
 * `concurrency` (every passive check on) take turns against one list server (Debian's nginx answering from memory,
 * far faster than any of them; the bare node:http peer with `--peer-server node`), for the same duration and
 * connections, round after round (every other round in the reverse order), so that each ratio compares runs
 * seconds apart. Each first runs the same load for a second in the same process, left out of its figure, so
 * that the rounds compare steady states rather than how fast each tool's code compiles.
 *
 * A round compares the load generators only when they were the bottleneck: each had its core, i.e. used at least
 * MIN_LOAD_CPU_SHARE of it over its measured window (petload measures its own CPU time, the autocannon CLI's is
 * read from /proc). Otherwise the round does not count, and the table says why, from the server's CPU share over
 * the same window (read from /proc too): server-bound when the server used its whole core (both tools wait for
 * it alike, and the ratio compares the server with itself), on a busy machine when neither the generator nor the
 * server had its core (another process took them). The table gives the median of the counted rounds' ratios and
 * beside it each tool's CPU time per request (a figure a crowded or server-bound round disturbs far less than
 * requests per second). The details keep every run, with each tool's CPU share and CPU time per request, the
 * server's CPU share over each, and petload's share of time in GC.
 */
import { row, type BenchEnv, type FigureResult, type Row } from '../figure.js';
import { runAutocannon, type AutocannonRun } from '../lib/autocannon-cli.js';
import { type CpuSample, cpuOverWindow, sampleCpu } from '../lib/cpu-sampler.js';
import { runNodeChild, startServerChild } from '../lib/processes.js';
import { median } from '../lib/stats.js';
import { startNginxListServer } from '../peers/nginx-server.js';
import type { ClientResult, LoadJob, ThroughputResult } from '../load/petload.js';

/** Real seconds each load generator warms up for before its measured window (at most `--warmup`). */
const LOAD_WARMUP_S = 1;

/**
 * The CPU share of its measured window a load generator must have used for a round to count: below it, the
 * generator spent part of the window waiting, for the server (or for its core, when something else ran on it).
 * The same share of the server's core over that window says the server was the bottleneck.
 */
export const MIN_LOAD_CPU_SHARE = 0.9;

type Tool = 'autocannon' | 'saturate' | 'concurrency';

interface Round {
  round: number;
  autocannon: AutocannonRun;
  saturate?: ThroughputResult;
  concurrency?: ThroughputResult;
  /** The HTTP client alone over each transport (with the checked figure): what the direct transport saves. */
  client?: { direct: ClientResult; undici: ClientResult };
  /** The server's CPU share over each tool's measured window (null: could not be read). */
  serverCpuShare: Partial<Record<Tool, number | null>>;
}

/** Why a round of a figure counts or not. */
export type RoundVerdict = 'counted' | 'server-bound' | 'busy machine';

/** Whether a load generator had its core over its measured window (a share that could not be read counts). */
export function hadItsCore(share: number | null): boolean {
  return share === null || !Number.isFinite(share) || share >= MIN_LOAD_CPU_SHARE;
}

/**
 * A load generator that had its core counts; one that did not is server-bound when the server had its own core
 * over the same window (or when that could not be read), else it ran on a busy machine.
 */
export function generatorVerdict(share: number | null, serverShare: number | null): RoundVerdict {
  if (hadItsCore(share)) return 'counted';
  return serverShare === null || serverShare >= MIN_LOAD_CPU_SHARE ? 'server-bound' : 'busy machine';
}

/** A round of a figure counts when both its tools had their cores; else the first reason found. */
function roundVerdict(round: Round, tool: Tool, side: ThroughputResult): RoundVerdict {
  const verdicts = [
    generatorVerdict(round.autocannon.cpuShare, round.serverCpuShare.autocannon ?? null),
    generatorVerdict(side.cpuShare, round.serverCpuShare[tool] ?? null),
  ];
  return verdicts.find((v) => v !== 'counted') ?? 'counted';
}

function describeShare(share: number | null, serverShare: number | null | undefined): string {
  const server = serverShare === null || serverShare === undefined ? '' : `, server ${serverShare.toFixed(2)}`;
  if (share === null) return `CPU share unknown${server}`;
  const verdict = generatorVerdict(share, serverShare ?? null);
  return `CPU share ${share.toFixed(2)}${server}${verdict === 'counted' ? '' : `: ${verdict}, not counted`}`;
}

function describe(r: ThroughputResult, serverShare: number | null | undefined): string {
  return `${Math.round(r.requestsPerSecond)}/s (${r.cpuMicrosPerRequest.toFixed(1)} µs CPU each, GC ${(100 * r.gcShare).toFixed(1)} %, ${describeShare(r.cpuShare, serverShare)})`;
}

function describeAutocannon(r: AutocannonRun, serverShare: number | null | undefined): string {
  const cpu = r.cpuMicrosPerRequest === null ? '' : `${r.cpuMicrosPerRequest.toFixed(1)} µs CPU each, `;
  return `${Math.round(r.requestsPerSecond)}/s (${cpu}${describeShare(r.cpuShare, serverShare)})`;
}

interface Setup {
  readonly env: BenchEnv;
  readonly want: { saturate: boolean; checked: boolean };
  readonly url: string;
  readonly warmupS: number;
  /** The server's CPU share over a window (its CPU time is sampled through every round). */
  readonly serverShare: (w: { from: number; to: number }) => number | null;
}

/** The server's CPU share over a tool's measured window. */
function serverShareOver(samples: readonly CpuSample[], window: { from: number; to: number }): number | null {
  return cpuOverWindow(samples, window.from, window.to)?.share ?? null;
}

/** One round: each tool in turn (the reverse order every other round), each after its own warm-up. */
async function runRound(s: Setup, round: number): Promise<Round> {
  const { options: o, pin, secret } = s.env;
  const child = <T>(job: LoadJob) =>
    runNodeChild<T>(pin.load, 'load/petload.ts', job, {
      timeoutMs: (o.durationS + s.warmupS) * 1000 + 60_000,
      secret,
    });
  const petload = (job: LoadJob) => child<ThroughputResult>(job);
  const r: Partial<Round> & { round: number } = { round, serverCpuShare: {} };
  const { url, warmupS } = s;
  const steps: Array<() => Promise<void>> = [
    async () => {
      r.autocannon = await runAutocannon(pin, {
        url: `${url}/pets?limit=20`,
        connections: o.connections,
        durationS: o.durationS,
        warmupS,
        secret,
      });
    },
    async () => {
      if (s.want.saturate)
        r.saturate = await petload({
          kind: 'saturate',
          url,
          connections: o.connections,
          seconds: o.durationS,
          warmupS,
        });
    },
    async () => {
      if (s.want.checked)
        r.concurrency = await petload({
          kind: 'concurrency',
          url,
          workers: o.connections,
          seconds: o.durationS,
          warmupS,
        });
    },
    async () => {
      if (!s.want.checked) return;
      const alone = (transport: 'direct' | 'undici') =>
        child<ClientResult>({ kind: 'client', url, workers: o.connections, seconds: o.durationS, warmupS, transport });
      r.client = { direct: await alone('direct'), undici: await alone('undici') };
    },
  ];
  // Every other round runs the tools in the reverse order, so that a machine that slows down or speeds up
  // over a round favours each side of a ratio equally often.
  for (const step of round % 2 === 1 ? steps : steps.reverse()) await step();
  if (r.autocannon === undefined) throw new Error('the autocannon run of a round is missing');
  const shares: Round['serverCpuShare'] = { autocannon: s.serverShare(r.autocannon.window) };
  if (r.saturate) shares.saturate = s.serverShare(r.saturate.window);
  if (r.concurrency) shares.concurrency = s.serverShare(r.concurrency.window);
  s.env.log(
    `throughput round ${round}/${o.rounds}: autocannon ${describeAutocannon(r.autocannon, shares.autocannon)}` +
      (r.saturate ? `, saturate ${describe(r.saturate, shares.saturate)}` : '') +
      (r.concurrency ? `, concurrency+checks ${describe(r.concurrency, shares.concurrency)}` : '') +
      (r.client
        ? `, the client alone ${r.client.direct.cpuMicrosPerRequest.toFixed(1)} µs CPU each (direct) against ${r.client.undici.cpuMicrosPerRequest.toFixed(1)} (undici)`
        : ''),
  );
  return { ...r, autocannon: r.autocannon, serverCpuShare: shares };
}

/** The list server of the rounds, as `withListServer` uses it: its address, its process, how to stop it. */
interface ListServer {
  readonly url: string;
  /** The process that answers (nginx's worker), whose CPU share is the server's; undefined when unknown. */
  readonly pid: number | undefined;
  /** Whether its code compiles as it runs (node:http): it first answers autocannon for `--warmup`. */
  readonly jit: boolean;
  stop(): Promise<void>;
}

async function startListServer(env: BenchEnv): Promise<ListServer> {
  const { options: o, pin, secret } = env;
  if (o.peerServer === 'nginx') return { ...(await startNginxListServer(pin)), jit: false };
  const server = await startServerChild(pin, { kind: 'list' }, secret);
  return { url: server.url, pid: server.pid, jit: true, stop: () => server.stop() };
}

/**
 * `fn` against one list server on the server core: Debian's nginx answering from memory (bench/peers/nginx-server.ts),
 * or with `--peer-server node` the bare node:http peer, which first answers autocannon for `--warmup` so that no
 * measurement sees its JIT's progress; `serverShare` reads the server's CPU share over a window of `fn`'s.
 */
export async function withListServer<T>(
  env: BenchEnv,
  fn: (url: string, serverShare: (w: { from: number; to: number }) => number | null) => Promise<T>,
): Promise<T> {
  const { options: o, pin, secret } = env;
  const server = await startListServer(env);
  const serverCpu = server.pid === undefined ? undefined : sampleCpu(server.pid);
  try {
    if (server.jit && o.warmupS > 0)
      await runAutocannon(pin, {
        url: `${server.url}/pets?limit=20`,
        connections: o.connections,
        durationS: o.warmupS,
        secret,
      });
    return await fn(server.url, (w) => serverShareOver(serverCpu?.samples() ?? [], w));
  } finally {
    serverCpu?.stop();
    await server.stop();
  }
}

/** Every round against the warm list server. */
async function runRounds(s: Omit<Setup, 'url' | 'serverShare'>): Promise<Round[]> {
  return withListServer(s.env, async (url, serverShare) => {
    const rounds: Round[] = [];
    for (let round = 1; round <= s.env.options.rounds; round++)
      rounds.push(await runRound({ ...s, url, serverShare }, round));
    return rounds;
  });
}

/** How a figure reads its side of a round, and how the table names it. */
interface FigureSpec {
  readonly id: 'saturate' | 'checked-throughput';
  readonly tool: Tool;
  readonly of: (r: Round) => ThroughputResult;
  readonly label: string;
  readonly what: string;
  readonly goal: number;
}

const definedOnly = (xs: readonly (number | null)[]): number[] => xs.filter((x): x is number => x !== null);

/** `2 server-bound, 1 on a busy machine`: the rounds left out, by reason. */
export function leftOut(verdicts: readonly RoundVerdict[]): string {
  const n = (v: RoundVerdict) => verdicts.filter((x) => x === v).length;
  const parts = [
    ...(n('server-bound') > 0 ? [`${n('server-bound')} server-bound`] : []),
    ...(n('busy machine') > 0 ? [`${n('busy machine')} on a busy machine`] : []),
  ];
  return parts.join(', ');
}

/**
 * The ratio's row: the median of the counted rounds, with how many were left out and why; when no round
 * counted, nothing is judged (such a ratio compares the server, or the machine's other work, not the tools).
 */
function ratioRow(
  spec: FigureSpec,
  rounds: readonly Round[],
  verdicts: readonly RoundVerdict[],
  peerWhat: string,
): Row {
  const counted = rounds.filter((_, i) => verdicts[i] === 'counted');
  const basis = counted.length > 0 ? counted : rounds;
  const measured = { value: median(basis.map((r) => spec.of(r).requestsPerSecond)), unit: 'req/s', what: spec.what };
  const peer = { value: median(basis.map((r) => r.autocannon.requestsPerSecond)), unit: 'req/s', what: peerWhat };
  if (counted.length === 0)
    return row({
      figure: `${spec.label}: not judged, no round counted (${leftOut(verdicts)})`,
      measured,
      peer,
      score: null,
      goal: { kind: 'report' },
    });
  const ratios = counted.map((r) => spec.of(r).requestsPerSecond / r.autocannon.requestsPerSecond);
  const note =
    counted.length === rounds.length ? '' : ` (${counted.length} of ${rounds.length} rounds; ${leftOut(verdicts)})`;
  return row({
    figure: `${spec.label}${note}`,
    measured,
    peer,
    score: { kind: 'ratio', value: median(ratios), unit: '' },
    goal: { kind: 'at-least', value: spec.goal },
  });
}

/**
 * CPU time per request beside the ratio: petload's and autocannon's, medians over the counted rounds (over every
 * round when none counted); the ratio is autocannon's over petload's, like the throughput ratio (above 1: petload
 * spent less).
 */
function cpuRow(spec: FigureSpec, rounds: readonly Round[], verdicts: readonly RoundVerdict[]): Row {
  const counted = rounds.filter((_, i) => verdicts[i] === 'counted');
  const basis = counted.length > 0 ? counted : rounds;
  const mine = basis.map((r) => spec.of(r).cpuMicrosPerRequest);
  const theirs = definedOnly(basis.map((r) => r.autocannon.cpuMicrosPerRequest));
  const ratios = definedOnly(
    basis.map((r) => {
      const a = r.autocannon.cpuMicrosPerRequest;
      const p = spec.of(r).cpuMicrosPerRequest;
      return a === null || !(p > 0) ? null : a / p;
    }),
  );
  return row({
    figure: `${spec.label}: CPU per request${counted.length > 0 ? '' : ' (rounds not counted)'}`,
    measured: { value: median(mine), unit: 'µs', what: `${spec.what}: CPU time per request` },
    peer:
      theirs.length > 0 ? { value: median(theirs), unit: 'µs', what: 'autocannon CLI: CPU time per request' } : null,
    score: ratios.length > 0 ? { kind: 'ratio', value: median(ratios), unit: '' } : null,
    goal: { kind: 'report' },
  });
}

/**
 * What the direct HTTP/1.1 transport saves: the client alone (no check, no executor) over it and over undici's Pool,
 * CPU µs per request, medians over the rounds; the ratio is undici's over the direct one's (above 1: direct spent
 * less). Both run seconds apart in each round, so a crowded round disturbs both alike.
 */
function clientRow(rounds: readonly Round[]): Row | null {
  const pairs = rounds.flatMap((r) => (r.client === undefined ? [] : [r.client]));
  if (pairs.length === 0) return null;
  const direct = median(pairs.map((p) => p.direct.cpuMicrosPerRequest));
  const undici = median(pairs.map((p) => p.undici.cpuMicrosPerRequest));
  return row({
    figure: 'the HTTP client alone: CPU per request, direct transport against undici',
    measured: { value: direct, unit: 'µs', what: 'createHttpClient over the direct HTTP/1.1 transport, no check' },
    peer: { value: undici, unit: 'µs', what: "createHttpClient over undici's Pool, no check" },
    score: {
      kind: 'ratio',
      value: median(pairs.map((p) => p.undici.cpuMicrosPerRequest / p.direct.cpuMicrosPerRequest)),
      unit: '',
    },
    goal: { kind: 'report' },
  });
}

function figureOf(spec: FigureSpec, rounds: readonly Round[], o: BenchEnv['options'], warmupS: number): FigureResult {
  const verdicts = rounds.map((r) => roundVerdict(r, spec.tool, spec.of(r)));
  const peerWhat = `autocannon CLI, ${o.connections} connections, ${o.durationS} s, against ${o.peerServer}`;
  return {
    id: spec.id,
    rows: [ratioRow(spec, rounds, verdicts, peerWhat), cpuRow(spec, rounds, verdicts)],
    details: {
      connections: o.connections,
      durationS: o.durationS,
      warmupS,
      minLoadCpuShare: MIN_LOAD_CPU_SHARE,
      peerServer: o.peerServer,
      // Every round's ratio; `verdicts` says which of them the table's median reads (`counted`) and why not.
      ratios: rounds.map((r) => spec.of(r).requestsPerSecond / r.autocannon.requestsPerSecond),
      verdicts,
      cpuShare: rounds.map((r) => spec.of(r).cpuShare),
      autocannonCpuShare: rounds.map((r) => r.autocannon.cpuShare),
      serverCpuShare: rounds.map((r) => ({
        autocannon: r.serverCpuShare.autocannon,
        petload: r.serverCpuShare[spec.tool],
      })),
      cpuMicrosPerRequest: rounds.map((r) => spec.of(r).cpuMicrosPerRequest),
      autocannonCpuMicrosPerRequest: rounds.map((r) => r.autocannon.cpuMicrosPerRequest),
      gcShare: rounds.map((r) => spec.of(r).gcShare),
      rounds,
    },
  };
}

export async function throughputFigures(
  env: BenchEnv,
  want: { saturate: boolean; checked: boolean },
): Promise<FigureResult[]> {
  const o = env.options;
  // Each load generator first runs the same load in the same process for a second: the rounds compare steady states.
  const warmupS = Math.min(o.warmupS, LOAD_WARMUP_S);
  const rounds = await runRounds({ env, want, warmupS });
  const out: FigureResult[] = [];
  if (want.saturate)
    out.push(
      figureOf(
        {
          id: 'saturate',
          tool: 'saturate',
          of: (r) => r.saturate!,
          label: 'saturate vs autocannon',
          what: `petload saturate, ${o.connections} connections`,
          goal: 0.9,
        },
        rounds,
        o,
        warmupS,
      ),
    );
  if (want.checked)
    out.push(
      figureOf(
        {
          id: 'checked-throughput',
          tool: 'concurrency',
          of: (r) => r.concurrency!,
          label: 'checked throughput',
          what: `petload concurrency, ${o.connections} workers, every passive check`,
          goal: 0.85,
        },
        rounds,
        o,
        warmupS,
      ),
    );
  const client = want.checked ? clientRow(rounds) : null;
  if (client !== null) out[out.length - 1]?.rows.push(client);
  const server = serverRow(rounds, o.peerServer);
  if (server !== null) out[0]?.rows.push(server);
  return out;
}

/**
 * The list server's CPU time per request in the autocannon runs (its CPU share over the window, per request served
 * in it), against autocannon's own: the ratio (autocannon's over the server's) is how many times the server could
 * outrun the fastest load generator on a core of its own; above 1, a round is not server-bound on a quiet machine.
 * Null when the server's CPU time could not be read.
 */
export function serverRow(rounds: readonly Round[], server: string): Row | null {
  const perRequest = definedOnly(
    rounds.map((r) => {
      const share = r.serverCpuShare.autocannon;
      return share === null || share === undefined || !(r.autocannon.requestsPerSecond > 0)
        ? null
        : (share * 1e6) / r.autocannon.requestsPerSecond;
    }),
  );
  // Not read (no /proc): no row.
  if (perRequest.length === 0) return null;
  const autocannon = definedOnly(rounds.map((r) => r.autocannon.cpuMicrosPerRequest));
  const [mine, theirs] = [median(perRequest), median(autocannon)];
  return row({
    figure: `throughput: the server (${server}) CPU per request`,
    measured: { value: mine, unit: 'µs', what: `${server}: CPU time per request served to autocannon (every round)` },
    peer: autocannon.length > 0 ? { value: theirs, unit: 'µs', what: 'autocannon CLI: CPU time per request' } : null,
    score:
      perRequest.length > 0 && autocannon.length > 0 && mine > 0
        ? { kind: 'ratio', value: theirs / mine, unit: '' }
        : null,
    goal: { kind: 'report' },
  });
}

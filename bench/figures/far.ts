/**
 * far: the compliance pass at a distance. The reference server on a scaled clock, three keys per plan, all three
 * plans, the pass run (in this process, through the engine, treated as remote) twice: directly, and through a
 * delaying relay (src/testing/delay-relay.ts) whose round trip is `--far-rtt` ms of the run clock (100 by default:
 * 25 real ms at the default x4, a window of 15 real s; `--far-scale 1` runs it on a real clock at a full 100 ms).
 * Each pass is timed from outside, in windows of the server's clock; the far one is held to 2.1 windows and the
 * direct one's verdict. The round trip is scaled with the clock so that it weighs on a window what it would on a
 * real one; what the target's and petload's own work cost per request (on loopback) is not, so a scaled pass
 * flatters neither side more than the other.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MINUTE_MS } from '../../src/api/plans.js';
import { parseKeys } from '../../src/config/keys-file.js';
import { loadScenario } from '../../src/config/load-scenario.js';
import { createClock } from '../../src/core/clock.js';
import { runScenario } from '../../src/engine/run.js';
import { createReferenceServer } from '../../src/reference-server/index.js';
import { startDelayRelay } from '../../src/testing/delay-relay.js';
import { row, type BenchEnv, type FigureResult } from '../figure.js';

/** The issue's goal: the pass through the link within this many windows, with the direct pass's verdict. */
const GOAL_WINDOWS = 2.1;
const PLANS = ['free', 'pro', 'business'] as const;

interface Pass {
  /** Real ms of the relay's round trip (null: direct). */
  realRttMs: number | null;
  wallMs: number;
  windows: number;
  verdict: string;
  exitCode: number;
  /** The schedule's planned and actual windows (report.json `schedule`). */
  planned: number | null;
  actual: number | null;
}

async function onePass(env: BenchEnv, scale: number, runRttMs: number | null): Promise<Pass> {
  const clock = createClock(scale);
  const name = runRttMs === null ? 'near' : 'far';
  const secret = env.secret.slice(0, 16);
  const keys = parseKeys(
    { keys: PLANS.flatMap((plan) => [1, 2, 3].map((i) => ({ key: `pl-bench-${name}-${plan}-${i}-${secret}`, plan }))) },
    'bench',
  );
  const server = await createReferenceServer({ keys, clock });
  const port = Number(new URL(server.url).port);
  const realRttMs = runRttMs === null ? null : runRttMs / scale;
  const relay = realRttMs === null ? null : await startDelayRelay({ port, rttMs: realRttMs });
  const url = relay === null ? server.url : server.url.replace(`:${port}/`, `:${relay.port}/`);
  const dir = await mkdtemp(join(tmpdir(), `petload-bench-${name}-`));
  try {
    const t0 = performance.now();
    const result = await runScenario({
      scenario: loadScenario('compliance'),
      target: { kind: 'external', url, keys, clock, treatAsRemote: true },
      ...(runRttMs === null ? {} : { rttMs: realRttMs! }),
      reportDir: dir,
      log: () => {},
      notice: () => {},
    });
    const wallMs = performance.now() - t0;
    const windows = (wallMs * scale) / MINUTE_MS;
    const s = result.report.schedule;
    const pass: Pass = {
      realRttMs,
      wallMs,
      windows,
      verdict: result.report.verdict,
      exitCode: result.exitCode,
      planned: s ? s.planned.windows : null,
      actual: s ? s.actual.windows : null,
    };
    env.log(
      `far: ${name} pass${realRttMs === null ? '' : ` (${realRttMs} real ms a round trip)`}: ${(wallMs / 1000).toFixed(1)} s = ${windows.toFixed(2)} windows, verdict ${pass.verdict}`,
    );
    return pass;
  } finally {
    await relay?.close();
    await server.close();
    await rm(dir, { recursive: true, force: true });
  }
}

export async function farFigure(env: BenchEnv): Promise<FigureResult> {
  const { farScale: scale, farRttMs: rtt } = env.options;
  const near = await onePass(env, scale, null);
  const far = await onePass(env, scale, rtt);
  const same = far.verdict === near.verdict && far.exitCode === near.exitCode;
  const clock = scale === 1 ? 'a real clock' : `a x${scale} clock (${far.realRttMs} real ms)`;
  const rows = [
    row({
      figure: `far: compliance pass through ${rtt} ms a round trip`,
      measured: {
        value: far.windows,
        unit: 'windows',
        what: `all plans, three keys a plan, remote, on ${clock}; verdict ${far.verdict} (direct: ${near.verdict})`,
      },
      peer: { value: near.windows, unit: 'windows', what: 'the same pass directly, in the same run' },
      // A verdict other than the direct pass's is not a time: it fails the goal whatever it took.
      score: { kind: 'ratio', value: same ? far.windows : Number.MAX_SAFE_INTEGER, unit: 'windows' },
      goal: { kind: 'under', value: GOAL_WINDOWS },
    }),
    row({
      figure: `far: what ${rtt} ms a round trip costs`,
      measured: { value: far.windows - near.windows, unit: 'windows', what: 'the far pass less the direct one' },
      peer: null,
      score: null,
      goal: { kind: 'report' },
    }),
  ];
  if (far.planned !== null && far.actual !== null) {
    rows.push(
      row({
        figure: `far: the schedule's estimate at ${rtt} ms (--rtt)`,
        measured: { value: far.planned, unit: 'windows', what: 'planned before the run' },
        peer: { value: far.actual, unit: 'windows', what: 'what the probe schedule took' },
        score: { kind: 'error', value: (100 * (far.planned - far.actual)) / far.actual, unit: '%' },
        goal: { kind: 'within', value: 15, unit: '%' },
      }),
    );
  }
  return { id: 'far', rows, details: { scale, rttMs: rtt, near, far } };
}

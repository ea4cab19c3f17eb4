/**
 * reference server: the autocannon CLI against the reference server (the bench's enterprise key, limits
 * too high to refuse) and against a bare node:http server replaying the very bytes the reference server
 * answered (status, headers and body captured from it first), after a warm-up of each, round after round.
 * The ratio is what the reference server's own work costs: auth, limiter, routing and headers. Each server
 * also notes the CPU time it used per request: on a crowded machine that ratio moves far less than requests
 * per second.
 */
import { request } from 'node:http';
import { row, type BenchEnv, type FigureResult } from '../figure.js';
import { runAutocannon, type AutocannonRun } from '../lib/autocannon-cli.js';
import { startServerChild, type ServerChild } from '../lib/processes.js';
import { median } from '../lib/stats.js';
import type { BareMode } from '../peers/bare-server.js';

const PATH = '/pets?limit=20';
const CAPTURE_TIMEOUT_MS = 10_000;

/** One answer of the reference server to `url`, as the replay peer serves it. */
function capture(url: string, secret: string): Promise<Extract<BareMode, { kind: 'replay' }>> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { headers: { authorization: `Bearer ${secret}`, accept: 'application/json' }, timeout: CAPTURE_TIMEOUT_MS },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const body = Buffer.concat(chunks);
          if (res.statusCode !== 200) {
            reject(
              new Error(
                `the reference server answered ${res.statusCode} to GET ${PATH}: ${body.toString('utf8').slice(0, 200)}`,
              ),
            );
            return;
          }
          resolve({ kind: 'replay', status: 200, headers: res.rawHeaders, body: body.toString('base64') });
        });
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`no answer to GET ${PATH} within ${CAPTURE_TIMEOUT_MS} ms`)));
    req.on('error', reject);
    req.end();
  });
}

interface ServerRun extends AutocannonRun {
  /** Server CPU µs per request answered. */
  serverCpuMicros: number;
}

async function measure(
  server: ServerChild,
  o: { connections: number; durationS: number; secret: string },
  pin: BenchEnv['pin'],
): Promise<ServerRun> {
  await server.record(0);
  const a = await runAutocannon(pin, { ...o, url: `${server.url}${PATH}` });
  const { cpuMicros } = await server.collect();
  return { ...a, serverCpuMicros: a.requests > 0 ? cpuMicros / a.requests : Number.NaN };
}

export async function referenceFigure(env: BenchEnv): Promise<FigureResult> {
  const { options: o, pin, secret } = env;
  const reference = await startServerChild(pin, { kind: 'reference' }, secret);
  const runs: { round: number; reference: ServerRun; replay: ServerRun }[] = [];
  let replayOf: Extract<BareMode, { kind: 'replay' }>;
  try {
    replayOf = await capture(`${reference.url}${PATH}`, secret);
    const replay = await startServerChild(pin, replayOf, secret);
    try {
      // Both servers answer a warm-up first, so that the rounds compare compiled code, not the JIT's progress.
      if (o.warmupS > 0) {
        for (const server of [reference, replay])
          await runAutocannon(pin, {
            url: `${server.url}${PATH}`,
            connections: o.connections,
            durationS: o.warmupS,
            secret,
          });
      }
      for (let round = 1; round <= o.rounds; round++) {
        const opts = { connections: o.connections, durationS: o.durationS, secret };
        const ref = await measure(reference, opts, pin);
        const bare = await measure(replay, opts, pin);
        runs.push({ round, reference: ref, replay: bare });
        env.log(
          `reference server round ${round}/${o.rounds}: reference ${Math.round(ref.requestsPerSecond)}/s (${ref.serverCpuMicros.toFixed(1)} µs CPU each), ` +
            `replay ${Math.round(bare.requestsPerSecond)}/s (${bare.serverCpuMicros.toFixed(1)} µs)`,
        );
      }
    } finally {
      await replay.stop();
    }
  } finally {
    await reference.stop();
  }
  const ratios = runs.map((r) => r.reference.requestsPerSecond / r.replay.requestsPerSecond);
  // Replay CPU over reference CPU: like the throughput ratio, above 1 is better, 0.70 means 43 % more CPU per request.
  const cpuRatios = runs.map((r) => r.replay.serverCpuMicros / r.reference.serverCpuMicros);
  const headerNames = replayOf.headers.filter((_, i) => i % 2 === 0);
  return {
    id: 'reference-server',
    rows: [
      row({
        figure: 'reference server',
        measured: {
          value: median(runs.map((r) => r.reference.requestsPerSecond)),
          unit: 'req/s',
          what: `autocannon → reference server GET ${PATH}`,
        },
        peer: {
          value: median(runs.map((r) => r.replay.requestsPerSecond)),
          unit: 'req/s',
          what: 'autocannon → bare node:http replaying the same bytes',
        },
        score: { kind: 'ratio', value: median(ratios), unit: '' },
        goal: { kind: 'at-least', value: 0.7 },
      }),
      row({
        figure: 'reference server: CPU per request',
        measured: {
          value: median(runs.map((r) => r.reference.serverCpuMicros)),
          unit: 'µs',
          what: 'reference server CPU per request',
        },
        peer: {
          value: median(runs.map((r) => r.replay.serverCpuMicros)),
          unit: 'µs',
          what: 'bare replay server CPU per request',
        },
        score: { kind: 'ratio', value: median(cpuRatios), unit: '' },
        goal: { kind: 'report' },
      }),
    ],
    details: {
      connections: o.connections,
      durationS: o.durationS,
      captured: {
        status: replayOf.status,
        headers: headerNames,
        bodyBytes: Buffer.from(replayOf.body, 'base64').length,
      },
      rounds: runs,
      ratios,
      cpuRatios,
    },
  };
}

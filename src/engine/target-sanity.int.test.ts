/**
 * A wrong target is not a regression (target-sanity.ts): a sign-in page, a plain 404 server and the reference
 * server without /v1 stop the run within its first answers (exit 3, aborted, with the reason), through the real
 * CLI once; a real API with defects (JSON errors everywhere, no rate-limit headers) runs to its verdict.
 */
import { createServer, type Server } from 'node:http';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseKeys } from '../config/keys-file.js';
import { parseScenarioText } from '../config/load-scenario.js';
import type { ApiKey } from '../core/api-key.js';
import type { Clock } from '../core/clock.js';
import { createReferenceServer } from '../reference-server/index.js';
import { readReportJson, runCli, scratch, STACK_LINE } from '../testing/cli.js';
import { startHostileServer, writeAnswer } from '../testing/hostile/server.js';
import { runScenario } from './run.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

/** A loopback server answering every request the same way; counts what it read. */
async function serveAlways(
  status: number,
  type: string | null,
  body: string,
): Promise<{ url: string; seen(): number }> {
  let seen = 0;
  const server: Server = createServer((req, res) => {
    seen++;
    req.resume();
    res.writeHead(status, type === null ? {} : { 'content-type': type }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  server.unref();
  return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}/v1`, seen: () => seen };
}

const TINY = parseScenarioText(
  `name: tiny
description: Two quick probes
probes: [auth, list]
`,
  'tiny.yaml',
);

const KEYS: ApiKey[] = parseKeys(
  {
    keys: [
      { key: 'free-key-sanity-0001', plan: 'free' },
      { key: 'pro-key-sanity-0002', plan: 'pro' },
    ],
  },
  'test',
);

async function run(target: string, keys: readonly ApiKey[] = KEYS, clock?: Clock) {
  const reportDir = mkdtempSync(join(tmpdir(), 'petload-sanity-'));
  const result = await runScenario({
    scenario: TINY,
    target: { kind: 'external', url: target, keys, ...(clock ? { clock } : {}) },
    reportDir,
    timeoutMs: 2000,
  });
  return { result, report: readReportJson(reportDir) };
}

describe('a target that is not the API stops the run', () => {
  it('HTML to everything, through the CLI: exit 3 within seconds, one line naming --target, an aborted report', async () => {
    const html = await serveAlways(200, 'text/html', '<html><body>Sign in</body></html>');
    const s = scratch('petload-sanity-cli-');
    const keysFile = s.keys([
      { key: 'free-key-1', plan: 'free' },
      { key: 'pro-key-1', plan: 'pro' },
    ]);
    const dir = join(s.dir, 'r');
    const cli = await runCli([
      'run',
      'smoke',
      '--duration',
      '5s',
      '--target',
      html.url,
      '--keys-file',
      keysFile,
      '--report-dir',
      dir,
    ]);
    expect(cli.code).toBe(3);
    expect(cli.stderr).not.toMatch(STACK_LINE);
    const line = `petload: the target does not answer as the Animal Store API: every answer to GET /pets, POST /pets was 200 text/html, without a JSON body or a rate-limit header: is --target (${html.url}) the API's base URL, ending in /v1, and not a sign-in or proxy page?`;
    expect(cli.stderr.split('\n')).toContain(line);
    expect(cli.stderr).toMatch(/^ {2}hint: Give --target as the API's base URL/m);
    const report = readReportJson(dir);
    expect(report.verdict).toBe('aborted');
    expect(report.exitCode).toBe(3);
    expect(report.abortReason).toBe(line.slice('petload: '.length));
    // Stopped within its first answers: the smoke run would have sent some hundred requests.
    expect(html.seen()).toBeLessThan(20);
  });

  it('a plain 404 server without JSON: aborted, exit 3', async () => {
    const plain = await serveAlways(404, 'text/plain', 'Not Found');
    const { result, report } = await run(plain.url);
    expect(result.exitCode).toBe(3);
    expect(report.abortReason).toMatch(
      /every answer to GET \/pets(, POST \/pets)? was 404 text\/plain, without a JSON/,
    );
    expect(plain.seen()).toBeLessThan(20);
  });

  it('the reference server without /v1: 404 to every request with a key, aborted, exit 3', async () => {
    const server = await createReferenceServer({ keys: KEYS, timeScale: 60 });
    cleanups.push(() => server.close());
    const { result, report } = await run(server.url.replace(/\/v1$/, ''), KEYS, server.clock);
    expect(result.exitCode).toBe(3);
    expect(report.verdict).toBe('aborted');
    expect(report.abortReason).toMatch(
      /^the target does not answer as the Animal Store API: the answer to GET \/pets with a valid key was 404 application\/json \(GET \/pets is never 404 on the API\): is --target \(http:\/\/127\.0\.0\.1:\d+\) the API's base URL, ending in \/v1\? At http:\/\/127\.0\.0\.1:\d+\/v1, GET \/pets with the same key answers 200 with a JSON list and rate-limit headers: use --target http:\/\/127\.0\.0\.1:\d+\/v1\.$/,
    );
  });

  it('one plan, one key, without /v1, through the CLI: exit 3 on the first answer with a key, before any probe waits', async () => {
    const key = 'free-key-wrong-base-0001';
    const upstream = await createReferenceServer({ keys: parseKeys({ keys: [{ key, plan: 'free' }] }, 'test') });
    cleanups.push(() => upstream.close());
    // In front, the same answers, counted; its base without /v1 is the wrong one.
    const front = await startHostileServer(upstream.url, async (r) => writeAnswer(r.socket, await r.honest()));
    cleanups.push(() => front.close());
    const base = front.url.replace(/\/v1$/, '');
    const s = scratch('petload-wrong-base-');
    const dir = join(s.dir, 'r');
    const args = ['run', 'compliance', '--plan', 'free', '--target', base, '--report-dir', dir];
    const cli = await runCli([...args, '--keys-file', s.keys([{ key, plan: 'free' }])]);
    expect(cli.code).toBe(3);
    expect(cli.stderr).not.toContain(key);
    const line = cli.stderr.split('\n').find((l) => l.startsWith('petload: the target does not answer'));
    expect(line).toMatch(
      /with a valid key was 404 application\/json \((GET|POST) \/pets is never 404 on the API\): is --target \(http:\/\/127\.0\.0\.1:\d+\) the API's base URL, ending in \/v1\? At http:\/\/127\.0\.0\.1:\d+\/v1, GET \/pets with the same key answers 200 with a JSON list and rate-limit headers: use --target http:\/\/127\.0\.0\.1:\d+\/v1\.$/,
    );
    const report = readReportJson(dir);
    expect(report.verdict).toBe('aborted');
    // Stopped before any probe waited a window out: the probes that wait a 429 out judged nothing.
    for (const id of ['retry-after.honest', 'ratelimit.quota-restored', 'ratelimit.enforced'])
      expect(report.checks.find((c) => c.id === id)?.counts.passed ?? 0).toBe(0);
    expect(front.requests()).toBeLessThan(30);
  });
});

describe('a real API with defects is judged, not stopped', () => {
  it('a JSON Error body on every answer (500): the run ends with its verdict', async () => {
    const broken = await serveAlways(
      500,
      'application/json',
      JSON.stringify({ code: 'internal', message: 'down', status: 500 }),
    );
    const { result, report } = await run(broken.url);
    expect(report.verdict).toBe('fail');
    expect(result.exitCode).toBe(1);
    expect(report.abortReason).toBeUndefined();
  });

  it('the reference server without rate-limit headers: judged by the checks (exit 1), not aborted', async () => {
    const upstream = await createReferenceServer({ keys: KEYS, timeScale: 60 });
    cleanups.push(() => upstream.close());
    const stripped = await startHostileServer(upstream.url, async (r) => {
      const a = await r.honest();
      writeAnswer(r.socket, { ...a, headers: a.headers.filter(([n]) => !/^x-ratelimit-/i.test(n)) });
    });
    cleanups.push(() => stripped.close());
    const { result, report } = await run(stripped.url, KEYS, upstream.clock);
    expect(report.verdict).toBe('fail');
    expect(result.exitCode).toBe(1);
    expect(report.checks.find((c) => c.id === 'ratelimit.headers-present')?.status).toBe('fail');
  });
});

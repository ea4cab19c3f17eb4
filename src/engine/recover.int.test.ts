/**
 * A run killed with SIGKILL in the middle of a load phase loses at most its last second: the run goes on in a
 * child process (runScenario through tsx) against a reference server in this process, behind a proxy that counts
 * the requests that reach it; once the load has run for a few seconds the child is killed, and the report
 * recovered from its journal must count what the server counted, less at most one second of the phase's rate.
 * Then a new run in the same directory says that it found an unfinished journal, and sets it aside.
 */
import { spawn } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseKeys } from '../config/keys-file.js';
import { parseScenarioText } from '../config/load-scenario.js';
import { createReferenceServer } from '../reference-server/index.js';
import { readReportJson, REPORT_FILES, reportFilesIn, scratch } from '../testing/cli.js';
import { honest } from '../testing/hostile/behaviours.js';
import { type Behaviour, startHostileServer } from '../testing/hostile/server.js';
import { filesUnder, findSecret, recognisableKey } from '../testing/secrets.js';
import { recoverReport } from './recover.js';
import { runScenario } from './run.js';

const ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));
const src = (path: string) => JSON.stringify(pathToFileURL(join(ROOT, 'src', path)).href);

/** Requests per second of the load phase. */
const RATE = 40;
/**
 * How late the run may read an answer the server wrote (real ms): the journal flushes on time, but an answer that
 * arrives while the run's event loop is busy is measured a little later. A loaded CI machine shows tens of ms.
 */
const READ_LAG_MS = 250;

const SCENARIO = `name: killed
description: a load phase that is killed in its middle
plans: [pro]
load:
  phases:
    - { executor: constant-rate, rate: ${RATE}/s, duration: 30s }
`;

/** The child: one run, its keys from the environment (never argv), its target and report directory from argv. */
const CHILD = `
import { parseKeys } from ${src('config/keys-file.ts')};
import { parseScenarioText } from ${src('config/load-scenario.ts')};
import { runScenario } from ${src('engine/run.ts')};
const [target, reportDir] = process.argv.slice(2);
const keys = parseKeys(JSON.parse(process.env.JOURNAL_TEST_KEYS), 'JOURNAL_TEST_KEYS');
const scenario = parseScenarioText(${JSON.stringify(SCENARIO)}, 'killed.yaml');
await runScenario({ scenario, target: { kind: 'external', url: target, keys }, reportDir, log: (l) => console.log(l), notice: (l) => console.log(l) });
`;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('a run killed with SIGKILL in a load phase', () => {
  it('is recovered from its journal up to its last second, with no key anywhere', { timeout: 60_000 }, async (ctx) => {
    const secret = recognisableKey('pro');
    const entries = [{ key: secret, plan: 'pro', perMinute: 100_000, perDay: 10_000_000 }];
    const upstream = await createReferenceServer({ keys: parseKeys({ keys: entries }, 'test') });
    // The server's own count: the requests of the run's key that reach it (the reachability check has none).
    const arrivals: number[] = [];
    const answers: number[] = [];
    const counting: Behaviour = async (r) => {
      const ours = r.req.headers.get('authorization')?.includes(secret) === true;
      if (ours) arrivals.push(performance.now());
      await honest(r);
      if (ours) answers.push(performance.now());
    };
    const proxy = await startHostileServer(upstream.url, counting);
    ctx.onTestFinished(async () => {
      await proxy.close();
      await upstream.close();
    });
    const s = scratch('petload-recover-');
    const script = s.file('child.mts', CHILD);
    const dir = join(s.dir, 'report');

    const child = spawn(process.execPath, ['--import', 'tsx', script, proxy.url, dir], {
      cwd: ROOT,
      env: { ...process.env, JOURNAL_TEST_KEYS: JSON.stringify({ keys: entries }), NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (output += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (output += d));
    const exited = new Promise<NodeJS.Signals | number | null>((res) => child.on('close', (c, sig) => res(sig ?? c)));
    const guard = setTimeout(() => child.kill('SIGKILL'), 25_000);

    // Kill it at least 2 s and 2 s' worth of requests into the load, at a point of the journal's second that
    // differs from run to run (a busy machine may send late: the count, not only the clock, says 2 s of load).
    const loaded = () => arrivals.length >= 2 * RATE && performance.now() - arrivals[0]! >= 2000;
    for (let i = 0; i < 2000 && !loaded() && child.exitCode === null; i++) await sleep(10);
    expect(loaded(), output).toBe(true);
    await sleep(Math.random() * 1000);
    const killedAt = performance.now();
    child.kill('SIGKILL');
    expect(await exited).toBe('SIGKILL');
    clearTimeout(guard);
    // What was on its way still reaches the server.
    await sleep(200);
    const served = arrivals.length;

    expect(reportFilesIn(dir)).toEqual([]);
    const r = await recoverReport(dir);
    expect(reportFilesIn(dir)).toEqual([...REPORT_FILES]);
    const report = readReportJson(dir);
    expect(report.verdict).toBe('aborted');
    expect(report.exitCode).toBe(3);
    expect(report.abortReason).toMatch(/^recovered from the journal: the run ended without writing its report/);
    expect(r.journal.finished).toBe(false);
    const recovered = report.totals.requests;
    // At least 2 s of load were served; nothing is invented; what is missing is at most the last second: the
    // answers the run had not yet read at its last flush (answers are recorded in the order they were written).
    expect(served).toBeGreaterThanOrEqual(2 * RATE);
    expect(recovered).toBeLessThanOrEqual(answers.filter((t) => t <= killedAt).length);
    const oldestMissing = recovered < answers.length ? killedAt - answers[recovered]! : 0;
    expect(oldestMissing, `served ${served}, recovered ${recovered}`).toBeLessThanOrEqual(1000 + READ_LAG_MS);
    // The same in counts: what the server answered in the run's last second, and what it was still answering.
    const lastSecond = answers.filter((t) => t > killedAt - 1000 - READ_LAG_MS).length;
    expect(served - recovered).toBeLessThanOrEqual(lastSecond + (served - answers.length));
    expect(report.operations.reduce((n, o) => n + o.count, 0)).toBe(recovered);
    expect(report.keys.map((k) => k.plan)).toEqual(['pro']);
    for (const f of filesUnder(dir)) expect(findSecret(f.text, [secret]), f.path).toBeNull();
    expect(findSecret(output, [secret])).toBeNull();

    // The next run in that directory says it found the unfinished journal and keeps it aside.
    const notices: string[] = [];
    const next = await runScenario({
      scenario: parseScenarioText(SCENARIO.replace('duration: 30s', 'duration: 1s'), 'next.yaml'),
      target: { kind: 'external', url: proxy.url, keys: parseKeys({ keys: entries }, 'test') },
      reportDir: dir,
      notice: (l) => notices.push(l),
    });
    expect(next.report.verdict).toBe('pass');
    const aside = readdirSync(dir).filter((n) => n.startsWith('unfinished-'));
    expect(aside).toHaveLength(1);
    expect(notices.filter((l) => l.includes('unfinished'))).toEqual([
      `petload: ${dir} held the journal of an unfinished run (started ${report.startedAt}); it is now in ${join(dir, aside[0]!)}, where \`petload report --recover ${join(dir, aside[0]!)}\` rebuilds its report; this run starts a new journal`,
    ]);
    expect(existsSync(join(dir, aside[0]!, 'journal.ndjson'))).toBe(true);
    expect((await recoverReport(join(dir, aside[0]!))).report.totals.requests).toBe(recovered);
    for (const f of filesUnder(dir)) expect(findSecret(f.text, [secret]), f.path).toBeNull();
  });
});

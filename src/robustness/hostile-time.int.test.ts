/**
 * Hostile targets, time: a run's time is bounded as a whole. Targets that refuse every request with a Retry-After
 * that is no plausible delay, that answer one path and then never again, or whose filtered lists answer 500: each
 * probe ends after MAX_FAILURES_IN_A_ROW failures in a row with its reason in the report, the other probes go on,
 * and the run ends far within its deadline. A run that outlives its deadline stops and reports, exit 3.
 * Before: `smoke --duration 1s` ran 8 minutes against Retry-After 1e12, and over 15 against `-5`.
 */
import { describe, expect, it } from 'vitest';
import { parseKeys } from '../config/keys-file.js';
import { loadScenario } from '../config/load-scenario.js';
import { createClock } from '../core/clock.js';
import { runScenario } from '../engine/run.js';
import { MAX_FAILURES_IN_A_ROW } from '../engine/probe-bounds.js';
import { createReferenceServer } from '../reference-server/index.js';
import { hangEvery } from '../testing/hostile/behaviours.js';
import { checkOf, HOSTILE_KEY } from '../testing/hostile/harness.js';
import { startHostileServer, writeAnswer, type Behaviour } from '../testing/hostile/server.js';
import { readReportJson, REPORT_FILES, reportFilesIn, runCli, scratch, STACK_LINE } from '../testing/cli.js';

/** `petload run smoke --duration 1s --timeout 1000` against a hostile server in front of a reference server. */
async function smokeAgainst(behaviour: Behaviour, quiet = true) {
  const keys = parseKeys({ keys: [{ key: HOSTILE_KEY, plan: 'free' }] }, 'test');
  const upstream = await createReferenceServer({ keys });
  const hostile = await startHostileServer(upstream.url, behaviour);
  try {
    const s = scratch('petload-hostile-time-');
    const dir = `${s.dir}/report`;
    const keysFile = s.keys([{ key: HOSTILE_KEY, plan: 'free' }]);
    const args = ['run', 'smoke', '--duration', '1s', '--timeout', '1000', '--target', hostile.url];
    const cli = await runCli([...args, '--keys-file', keysFile, '--report-dir', dir, ...(quiet ? ['--quiet'] : [])], {
      killAfterMs: 60_000,
    });
    return { cli, files: reportFilesIn(dir), report: readReportJson(dir), requests: hostile.requests() };
  } finally {
    await hostile.close();
    await upstream.close();
  }
}

/** Every API request refused: 429 with `retryAfter`, a minute window used up whose Reset is a second away. */
const refuseWith =
  (retryAfter: string): Behaviour =>
  async (r) => {
    const a = await r.honest();
    if (!r.req.target.startsWith('/v1/pets')) return writeAnswer(r.socket, a);
    const now = Date.now();
    const headers: [string, string][] = [
      ['Date', new Date(now).toUTCString()],
      ['Content-Type', 'application/json'],
      ['X-RateLimit-Limit', '60'],
      ['X-RateLimit-Remaining', '0'],
      ['X-RateLimit-Reset', String(Math.floor(now / 1000) + 1)],
      ['Retry-After', retryAfter],
    ];
    const body = Buffer.from(JSON.stringify({ code: 'rate_limited', message: 'slow down', status: 429 }));
    writeAnswer(r.socket, { status: 429, headers, body });
  };

/** The deadline the run announced in its notes, real ms. */
function deadlineOf(notes: readonly string[]): number {
  const m = /^Deadline: the run stops after (?:(\d+) min )?(\d+) s of real time/.exec(
    notes.find((n) => n.startsWith('Deadline:')) ?? '',
  );
  if (!m) throw new Error(`no deadline in the notes: ${notes.join('\n')}`);
  return (Number(m[1] ?? 0) * 60 + Number(m[2])) * 1000;
}

const endedEarly = (notes: readonly string[]) => notes.filter((n) => / ended early: /.test(n));

/**
 * A CLI run against these targets: the run itself is held to 30 s (each case asserts it from the report); the
 * process's start and exit and the two servers come on top. By design a run here takes about 20 s alone: each
 * refusal is waited out to its Reset read on the latest reading (2 s: Date's and Reset's rounding), eight times,
 * then the load starts once the last 429's hold is over (2 s more, issue 40.4) and runs its 1 s. Side by side
 * with the suite, vitest's default 30 s cut runs short that the assertion would have judged.
 */
const CLI_RUN = { timeout: 45_000 };

describe.concurrent('Retry-After that is no plausible delay, on every answer', () => {
  const implausible = [
    { name: 'an epoch in milliseconds', raw: '1000000000000', judged: 'retry-after.plausible' },
    { name: 'an HTTP-date in year 9999', raw: 'Fri, 31 Dec 9999 23:59:59 GMT', judged: 'retry-after.plausible' },
    { name: 'negative', raw: '-5', judged: 'retry-after.syntax' },
    { name: 'not a number', raw: 'NaN', judged: 'retry-after.syntax' },
  ];
  for (const c of implausible) {
    it(
      `${c.name} (${c.raw}): judged by ${c.judged}, never waited for, every probe ends with its reason`,
      CLI_RUN,
      async () => {
        const run = await smokeAgainst(refuseWith(c.raw), c.raw !== '-5');
        expect(run.cli.stderr).not.toMatch(STACK_LINE);
        expect(run.files).toEqual([...REPORT_FILES]);
        const { report } = run;
        expect(report.durationMs).toBeLessThan(deadlineOf(report.notes));
        // Each refusal waited out by its Reset (a second), not by the Retry-After: a few seconds per probe.
        expect(report.durationMs).toBeLessThan(30_000);
        const judged = checkOf(report, c.judged);
        expect(judged.status).toBe('fail');
        expect(judged.evidence[0]!.message).toContain(c.raw);
        if (c.judged === 'retry-after.syntax')
          expect(checkOf(report, 'retry-after.plausible').reasons).toContain(
            'Retry-After is not readable (see retry-after.syntax)',
          );
        // One defect, one failure: petload's own discipline holds.
        expect(checkOf(report, 'backoff.respects-retry-after').status).not.toBe('fail');
        // Every wait says what it is for (a refusal's wait on a real clock is about 2 s).
        if (c.raw === '-5')
          expect(run.cli.stdout + run.cli.stderr).toMatch(
            /free#1 \(…[0-9a-f]{4}\) waiting [\d.]+ s for the end of the wait its 429 asked for/,
          );
        expect(endedEarly(report.notes)).toContain(
          `probe list [free] ended early: ${MAX_FAILURES_IN_A_ROW} requests in a row were refused (429); the last GET /pets -> 429`,
        );
        // No wait was promised to keep: the probe's skips point at the check that failed the Retry-After.
        expect(checkOf(report, 'list.invalid-status').reasons.join()).toMatch(
          new RegExp(
            `the probe ended early \\(3 requests in a row were refused.*\\(see ${c.judged.replace('.', '\\.')}\\)`,
          ),
        );
      },
    );
  }
});

describe.concurrent('hostile targets: time', () => {
  it(
    'one path answered, then never an answer: each probe ends after 3 silences, the run well within its deadline',
    CLI_RUN,
    async () => {
      const run = await smokeAgainst(hangEvery(1));
      expect(run.cli.stderr).not.toMatch(STACK_LINE);
      expect(run.files).toEqual([...REPORT_FILES]);
      const { report } = run;
      expect(report.durationMs).toBeLessThan(deadlineOf(report.notes));
      const ended = endedEarly(report.notes);
      expect(ended.length).toBeGreaterThanOrEqual(2);
      for (const line of ended) expect(line).toMatch(/ended early: 3 requests in a row got no answer; the last /);
      expect(checkOf(report, 'contract.transport').status).toBe('fail');
      // 37 requests × the timeout before; now a few per probe.
      expect(run.requests).toBeLessThan(20);
    },
  );
});

/** The filtered lists answer 500, with the honest rate-limit headers but Remaining 0 (an over-limit sign). */
const filteredListFails: Behaviour = async (r) => {
  const a = await r.honest();
  if (!(r.req.method === 'GET' && /^\/v1\/pets\?.*status=/.test(r.req.target))) return writeAnswer(r.socket, a);
  const headers = a.headers.map(([k, v]): [string, string] => [k, /^x-ratelimit-remaining$/i.test(k) ? '0' : v]);
  const body = Buffer.from(JSON.stringify({ code: 'internal', message: 'filter failed', status: 500 }));
  writeAnswer(r.socket, { status: 500, headers, body });
};

/** A run through the library against a hostile server in front of a reference server, both on `clock`. */
async function libraryRun(
  behaviour: Behaviour,
  scenarioYaml: string,
  extra: { timeoutMs: number; deadlineMs?: number },
) {
  const clock = createClock(60);
  const keys = parseKeys({ keys: [{ key: HOSTILE_KEY, plan: 'free' }] }, 'test');
  const upstream = await createReferenceServer({ keys, clock });
  const hostile = await startHostileServer(upstream.url, behaviour);
  try {
    const s = scratch('petload-hostile-time-');
    const started = performance.now();
    const result = await runScenario({
      scenario: loadScenario(s.file('scenario.yaml', scenarioYaml)),
      target: { kind: 'external', url: hostile.url, keys, clock },
      reportDir: `${s.dir}/report`,
      ...extra,
    });
    return { result, ms: performance.now() - started, files: reportFilesIn(`${s.dir}/report`) };
  } finally {
    await hostile.close();
    await upstream.close();
  }
}

describe.concurrent('hostile targets: time, on a scaled clock', () => {
  it('a store whose filtered lists answer 500: list and input end with their reason, the rest is judged', async () => {
    const yaml = 'name: filtered\ndescription: list and input\nplans: [free]\nprobes: [list, input, unknown-id]\n';
    const { result, files } = await libraryRun(filteredListFails, yaml, { timeoutMs: 2000 });
    const { report } = result;
    expect(files).toEqual([...REPORT_FILES]);
    expect(report.durationMs).toBeLessThan(deadlineOf(report.notes));
    const ended = endedEarly(report.notes);
    expect(ended).toContain(
      'probe list [free] ended early: 3 requests in a row got a server error; the last GET /pets?status=available -> 500',
    );
    expect(ended).toContain(
      'probe input [free] ended early: 3 requests in a row got a server error; the last GET /pets?limit=100&status=available -> 500',
    );
    expect(ended).toHaveLength(2);
    // The other probes went on, and what input judged before its end stands.
    expect(checkOf(report, 'get.unknown-404').status).toBe('pass');
    expect(report.checks.find((c) => c.id === 'create.rejects-invalid')?.counts.passed).toBe(10);
    expect(checkOf(report, 'list.status-filter').reasons.join()).toMatch(
      /the probe ended early \(3 requests in a row.*\) \(see contract\.no-server-errors\)/,
    );
    expect(checkOf(report, 'contract.no-server-errors').status).toBe('fail');
    // Three server errors per probe, each waited out to its minute window's end: not one a minute for eight minutes.
    expect(report.totals.statusCounts['500']).toBe(2 * MAX_FAILURES_IN_A_ROW);
  });

  it('past its deadline a run stops as an interrupt does, and reports why: aborted, exit 3', async () => {
    const yaml = 'name: stalled\ndescription: smoke probes\nplans: [free]\nprobes: [list, create-get]\n';
    const { result, ms, files } = await libraryRun(hangEvery(1), yaml, { timeoutMs: 60_000, deadlineMs: 1500 });
    expect(files).toEqual([...REPORT_FILES]);
    expect(result.report.verdict).toBe('aborted');
    expect(result.exitCode).toBe(3);
    expect(result.report.abortReason).toMatch(/^the run's deadline passed: 2 s \(set by the caller\); it stopped/);
    expect(result.hint).toMatch(/docs\/safety\.md/);
    // The deadline, then at most the drain's 2 s for the requests in flight.
    expect(ms).toBeLessThan(1500 + 2000 + 2500);
  });
});

/**
 * A target on a clock of its own: the same compliant store (the reference server, a fixed window of 10 a minute)
 * with its clock 20 minutes ahead, 20 minutes behind, and on time, its Retry-After given as an HTTP-date on its
 * clock (the refused window's end, its Reset), run through the CLI on the real clock. Every
 * judgement of a wait, a Reset or a Retry-After is made on the server's timeline: the verdict is the baseline's, and
 * petload waits each refusal out in full (no request on the key arrives inside a Retry-After, measured on the real
 * clock by the server in front).
 */
import { describe, expect, it } from 'vitest';
import { parseKeys } from '../config/keys-file.js';
import { realClock, type Clock } from '../core/clock.js';
import { parseHttpDate } from '../http/headers.js';
import { createReferenceServer } from '../reference-server/index.js';
import { checkOf } from '../testing/hostile/harness.js';
import { startHostileServer, writeAnswer, type Answer } from '../testing/hostile/server.js';
import { readReportJson, runCli, scratch } from '../testing/cli.js';

const KEY = 'SECRET-free-skew-7d1e0a4b9c2f';
const PER_MINUTE = 10;
const SCENARIO = `name: skewed
description: The probes that wait a refusal out, on the target's clock
plans: [free]
keysPerPlan: 1
probes: [enforce, retry-after-honest, restore]
`;

/** A request as the server in front saw it: when it arrived (real ms), and the refusal it got, if any. */
interface Seen {
  at: number;
  /** Real ms until which the refusal asked the key to wait (the server's timeline is the real one shifted). */
  until: number | null;
}

const header = (a: Answer, name: string) => a.headers.find(([n]) => n.toLowerCase() === name)?.[1];

/**
 * Turns a delay-seconds Retry-After into an HTTP-date on the server's clock: the refused window's end (its Reset),
 * the same instant on every 429 of the window, or Date + the seconds when that is later (a ban). Returns the answer and
 * the shortest wait the date can mean, in ms from the answer (Date floors the server's time).
 */
function asHttpDate(a: Answer): { answer: Answer; waitMs: number | null } {
  const ra = header(a, 'retry-after');
  const date = parseHttpDate(header(a, 'date') ?? '');
  if (ra === undefined || date === null) return { answer: a, waitMs: null };
  const until = Math.max(Number(header(a, 'x-ratelimit-reset') ?? 0) * 1000, date + Number(ra) * 1000);
  const headers = a.headers.map(([n, v]): [string, string] =>
    n.toLowerCase() === 'retry-after' ? [n, new Date(until).toUTCString()] : [n, v],
  );
  return { answer: { ...a, headers }, waitMs: until - date - 1000 };
}

async function runSkewed(skewMs: number) {
  const keys = parseKeys({ keys: [{ key: KEY, plan: 'free', perMinute: PER_MINUTE }] }, 'test');
  const clock: Clock = { ...realClock, now: () => realClock.now() + skewMs };
  const upstream = await createReferenceServer({ keys, clock });
  const seen: Seen[] = [];
  const front = await startHostileServer(upstream.url, async (r) => {
    const at = performance.now();
    const honest = await r.honest();
    const { answer, waitMs } = asHttpDate(honest);
    const keyed = r.req.headers.get('authorization') === `Bearer ${KEY}`;
    if (keyed) seen.push({ at, until: waitMs === null ? null : performance.now() + waitMs });
    writeAnswer(r.socket, answer);
  });
  try {
    const s = scratch('petload-skew-');
    const reportDir = `${s.dir}/report`;
    const cli = await runCli(
      [
        'run',
        s.file('skewed.yaml', SCENARIO),
        '--target',
        front.url,
        '--keys-file',
        s.keys([{ key: KEY, plan: 'free', perMinute: PER_MINUTE }]),
        '--report-dir',
        reportDir,
        '--quiet',
      ],
      { killAfterMs: 280_000 },
    );
    return { cli, report: readReportJson(reportDir), seen };
  } finally {
    await front.close();
    await upstream.close();
  }
}

/** Requests on the key that arrived inside a running Retry-After (later than 300 ms after it: not in flight). */
function early(seen: readonly Seen[]): number {
  let n = 0;
  for (const r of seen) {
    if (r.until === null) continue;
    n += seen.filter((x) => x.at > r.at + 300 && x.at < r.until! - 1000).length;
  }
  return n;
}

const failed = (report: ReturnType<typeof readReportJson>) =>
  report.checks.filter((c) => c.status === 'fail').map((c) => c.id);

describe('a target whose clock is far from the local one', () => {
  it('is judged on its own timeline: the verdict of the baseline, every refusal waited out in full', async () => {
    const [base, ahead, behind] = await Promise.all([runSkewed(0), runSkewed(20 * 60_000), runSkewed(-20 * 60_000)]);
    for (const run of [base, ahead, behind]) {
      expect(run.cli.stderr).not.toContain(KEY);
      expect(run.seen.filter((r) => r.until !== null).length).toBeGreaterThan(0);
      expect(early(run.seen)).toBe(0);
      const backoff = checkOf(run.report, 'backoff.respects-retry-after');
      expect(backoff.status, backoff.evidence.map((e) => e.message).join('\n')).toBe('pass');
      for (const id of ['retry-after.honest', 'ratelimit.quota-restored']) {
        const c = checkOf(run.report, id);
        expect(c.status, `${id}: ${[...c.reasons, ...c.evidence.map((e) => e.message)].join('\n')}`).toBe('pass');
      }
    }
    expect(base.cli.code).toBe(0);
    for (const run of [ahead, behind]) {
      expect(run.cli.code).toBe(base.cli.code);
      expect(run.report.verdict).toBe(base.report.verdict);
      expect(failed(run.report)).toEqual(failed(base.report));
    }
  }, 300_000);
});

/**
 * Hostile targets, part 2 (what comes back): bodies that are not the JSON they claim, a 50 MB body, headers
 * repeated or absurdly long, HTTP/1.0 and a connection closed after each answer. The real CLI runs against a
 * loopback server made for each case; every run completes, records what is wrong against the check that owns
 * it (with evidence), and writes all four reports. A server that is merely old-fashioned passes.
 */
import { describe, expect, it } from 'vitest';
import {
  closeAfterEach,
  http10,
  hugeEvery,
  longHeadersEvery,
  notJsonEvery,
  repeatedHeaders,
  type HugeBodies,
} from '../testing/hostile/behaviours.js';
import { checkOf, runAgainstHostile } from '../testing/hostile/harness.js';
import { REPORT_FILES, STACK_LINE } from '../testing/cli.js';

// Each case has its own servers and child process: they run side by side.
describe.concurrent('hostile targets: content', () => {
  it('a JSON content type over an HTML page: contract.transport fails, quoting the body', async () => {
    const run = await runAgainstHostile(notJsonEvery(3));
    expect(run.cli.code).toBe(1);
    expect(run.cli.stderr).not.toMatch(STACK_LINE);
    expect(run.files).toEqual([...REPORT_FILES]);
    const t = checkOf(run.report, 'contract.transport');
    expect(t.status).toBe('fail');
    expect(t.evidence[0]!.message).toMatch(/^the body declared application\/json does not parse: /);
    expect(t.evidence[0]!.body).toBe('<html><body><h1>502 Bad Gateway</h1></body></html>');
  });

  it('a 50 MB body: reading stops at the cap, the body is not judged (and says why), the run goes on', async () => {
    const bodies: HugeBodies = { whole: 0, cut: 0 };
    const run = await runAgainstHostile(hugeEvery(5, bodies));
    expect(run.cli.stderr).not.toMatch(STACK_LINE);
    expect(run.files).toEqual([...REPORT_FILES]);
    expect(run.report.verdict).not.toBe('aborted');
    // The client hung up on every huge body: none was written whole.
    expect(bodies.cut).toBeGreaterThan(0);
    expect(bodies.whole).toBe(0);
    expect(checkOf(run.report, 'list.schema').reasons).toContain('body not judged: larger than the read cap');
    expect(run.report.totals.requests).toBeGreaterThanOrEqual(30);
  });

  it('rate-limit headers repeated: ratelimit.headers-present fails with every value as evidence', async () => {
    const run = await runAgainstHostile(repeatedHeaders);
    expect(run.cli.code).toBe(1);
    expect(run.files).toEqual([...REPORT_FILES]);
    const h = checkOf(run.report, 'ratelimit.headers-present');
    expect(h.status).toBe('fail');
    expect(h.evidence[0]!.message).toMatch(/X-RateLimit-Limit repeated \(60, 600\)/);
    expect(checkOf(run.report, 'contract.transport').status).toBe('pass');
  });

  it('absurdly long headers: a 1 MB header is a transport failure, an 8 KB Reset a syntax failure', async () => {
    const run = await runAgainstHostile(longHeadersEvery(4));
    expect(run.cli.code).toBe(1);
    expect(run.cli.stderr).not.toMatch(STACK_LINE);
    expect(run.files).toEqual([...REPORT_FILES]);
    const t = checkOf(run.report, 'contract.transport');
    expect(t.status).toBe('fail');
    expect(t.evidence[0]!.message).toMatch(/^no whole HTTP response \(\w+\) \[transport: \w+: Headers Overflow/);
    const syntax = checkOf(run.report, 'ratelimit.headers-syntax');
    expect(syntax.status).toBe('fail');
    expect(syntax.evidence[0]!.message).toMatch(/X-RateLimit-Reset "9999/);
  });
});

describe.concurrent('old-fashioned but correct targets pass', () => {
  it.each([
    ['HTTP/1.0 without Content-Length, closing after the body', http10],
    ['HTTP/1.1 with Connection: close after each answer', closeAfterEach],
  ])('%s', async (_what, behaviour) => {
    const run = await runAgainstHostile(behaviour);
    expect(run.cli.code).toBe(0);
    expect(run.files).toEqual([...REPORT_FILES]);
    expect(run.report.verdict).toBe('pass');
    expect(run.report.totals.transportErrors).toBe(0);
    expect(checkOf(run.report, 'contract.transport').status).toBe('pass');
    expect(run.report.totals.requests).toBe(run.requests - 1);
  });
});

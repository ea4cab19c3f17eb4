import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CHECK_IDS } from '../checks/catalogue.js';
import { createRunEvents, type RunEvents } from '../core/run-events.js';
import type { JournalHeadInput } from '../journal/format.js';
import { startJournal } from '../journal/writer.js';
import { createHistogram, record, summarize } from '../metrics/histogram.js';
import { readReportFile } from '../outputs/read.js';
import { REPORT_FILES, reportFilesIn } from '../testing/cli.js';
import { recoverReport } from './recover.js';

const HEAD: JournalHeadInput = {
  tool: { name: 'petload', version: '0.0.0-test' },
  scenario: { name: 'recover-test', description: 'a run that was killed' },
  target: { url: 'http://127.0.0.1:1/v1', embedded: false, timeScale: 2, faults: [] },
  plans: ['free', 'pro'],
  keys: [
    { label: 'free#1 (…abcd)', plan: 'free', sacrificial: false },
    { label: 'pro#1 (…efgh)', plan: 'pro', sacrificial: false },
  ],
  startedAt: '2026-01-02T03:04:05.000Z',
  thresholds: [
    { expression: 'count(429) == 0', severity: 'critical' },
    { expression: 'p(99) < 1s', severity: 'major' },
  ],
};

const ex = (plan: 'free' | 'pro', operation: string | null, status: number | null, latencyMs: number) =>
  ({
    type: 'exchange',
    key: null,
    plan,
    operation,
    status,
    latencyMs,
    serviceMs: latencyMs,
    remaining: null,
    at: 0,
  }) as const;

/** A journal of three seconds of traffic, cut off without an end line (as kill -9 leaves it). */
function killedRun(head: JournalHeadInput = HEAD): {
  dir: string;
  events: RunEvents;
  close: () => Promise<void>;
  latencies: number[];
} {
  let t = 0;
  const dir = mkdtempSync(join(tmpdir(), 'petload-recover-'));
  const events = createRunEvents();
  const journal = startJournal(events, dir, head, { now: () => t, intervalMs: 1000, datasync: false });
  const latencies: number[] = [];
  for (let s = 0; s < 3; s++) {
    for (let i = 0; i < 50; i++) {
      const latency = 1 + ((i * 7 + s * 13) % 40) / 3;
      latencies.push(latency);
      events.emit(ex(i % 2 === 0 ? 'free' : 'pro', 'listPets', i % 10 === 9 ? 429 : 200, latency));
    }
    events.emit(ex('pro', 'createPet', 201, 3));
    events.emit(ex('free', null, null, 2500));
    t += 1000;
    journal.flush();
  }
  const counts = (passed: number, failed: number, skipped: number) => ({ passed, failed, skipped });
  events.emit({ type: 'check', id: 'list.schema', plan: 'free', status: 'pass', counts: counts(1, 0, 0) });
  events.emit({
    type: 'check',
    id: 'list.schema',
    plan: 'free',
    status: 'fail',
    counts: counts(40, 1, 0),
    message: 'a pet without a name',
  });
  events.emit({
    type: 'check',
    id: 'list.schema',
    plan: 'free',
    status: 'fail',
    counts: counts(70, 1, 1),
    message: 'no body to judge',
  });
  events.emit({ type: 'check', id: 'ratelimit.headers-present', plan: 'pro', status: 'pass', counts: counts(1, 0, 0) });
  events.emit({ type: 'note', text: 'load phase 1 [free]: planned 100' });
  t += 400;
  journal.flush();
  return { dir, events, close: () => journal.close(), latencies };
}

describe('recovering a report from the journal', () => {
  it("keeps a focused run's focus: only the checks in scope judged, the others out of scope", async () => {
    const outOfScope = CHECK_IDS.filter((id) => id !== 'list.schema');
    const { dir } = killedRun({ ...HEAD, focus: { checks: ['list.schema'], probes: [] }, outOfScope, thresholds: [] });
    const r = await recoverReport(dir);
    expect(r.report.focus).toEqual({ checks: ['list.schema'], probes: [] });
    expect(r.report.outOfScope).toEqual(outOfScope);
    expect(r.report.checks.map((c) => [c.id, c.status])).toEqual([['list.schema', 'fail']]);
    expect(readReportFile(join(dir, 'report.json'))).toEqual(r.report);
  });

  it('rebuilds every file of a killed run: verdict aborted, counts summed, histograms merged exactly, checks as they stood', async () => {
    const { dir, latencies } = killedRun();
    const r = await recoverReport(dir);
    expect(reportFilesIn(dir)).toEqual([...REPORT_FILES]);
    expect(r.journal).toMatchObject({ finished: false, torn: false, intervals: 4, coveredMs: 3400 });
    const report = readReportFile(join(dir, 'report.json'));
    expect(report).toEqual(r.report);
    expect(report.verdict).toBe('aborted');
    expect(report.exitCode).toBe(3);
    expect(report.abortReason).toBe(
      'recovered from the journal: the run ended without writing its report (killed?); what it measured in its first 3.4 s is here',
    );
    expect(report.scenario).toEqual(HEAD.scenario);
    expect(report.keys).toEqual(HEAD.keys);
    expect(report.startedAt).toBe(HEAD.startedAt);
    expect(report.endedAt).toBe('2026-01-02T03:04:08.400Z');

    expect(report.totals).toMatchObject({
      requests: 156,
      transportErrors: 3,
      statusCounts: { '200': 135, '429': 15, '201': 3, error: 3 },
    });
    const list = report.operations.find((o) => o.operation === 'listPets')!;
    expect(list.count).toBe(150);
    const exact = createHistogram();
    for (const l of latencies) record(exact, l * 1000);
    expect(list.latency).toEqual(summarize(exact));
    expect(report.operations.map((o) => o.operation)).toEqual(['listPets', 'createPet', 'other']);

    // One timeline bucket per interval, on the run clock (time scale 2).
    expect(report.timeline.bucketMs).toBe(2000);
    expect(report.timeline.buckets.map((b) => [b.t, b.sent, b.s429, b.errors])).toEqual([
      [0, 52, 5, 1],
      [2000, 52, 5, 1],
      [4000, 52, 5, 1],
    ]);

    const schema = report.checks.find((c) => c.id === 'list.schema')!;
    expect(schema.status).toBe('fail');
    expect(schema.byPlan).toEqual([
      {
        plan: 'free',
        status: 'fail',
        counts: { passed: 70, failed: 1, skipped: 1 },
        evidence: [{ message: 'a pet without a name' }],
        reasons: ['no body to judge'],
        info: {},
      },
    ]);
    expect(report.checks.find((c) => c.id === 'ratelimit.headers-present')!.status).toBe('pass');
    // The thresholds are judged again on what was recovered.
    expect(report.thresholds.map((t) => [t.expression, t.observed, t.ok])).toEqual([
      ['count(429) == 0', 15, false],
      ['p(99) < 1s', expect.any(Number), false],
    ]);
    expect(report.notes[0]).toBe('load phase 1 [free]: planned 100');
    expect(report.notes[1]).toMatch(/^Recovered from .*journal\.ndjson: 4 interval\(s\) covering 3\.4 s/);
    // The exchange events carry service times: they are journaled and recovered too.
    expect(report.notes.filter((n) => n.startsWith('Service times were not journaled'))).toEqual([]);
    for (const op of report.operations) expect(op.serviceTime.count, op.operation).toBe(op.count);
    expect(readFileSync(join(dir, 'summary.md'), 'utf8')).toMatch(/ABORTED/);
    expect(readFileSync(join(dir, 'junit.xml'), 'utf8')).toContain('run [aborted]');
  });

  it('says so when the journal is that of a run that finished, and will not write over its report', async () => {
    const { dir, events, close } = killedRun();
    events.emit({ type: 'ended', verdict: 'fail', exitCode: 1, files: null });
    await close();
    writeFileSync(join(dir, 'report.json'), '{}');
    await expect(recoverReport(dir)).rejects.toThrow(
      expect.objectContaining({
        code: 'E_USAGE',
        message: expect.stringMatching(/a run that finished \(verdict fail\)/),
      }),
    );
    const out = join(dir, 'recovered');
    const r = await recoverReport(dir, { out });
    expect(r.journal.finished).toBe(true);
    expect(r.report.abortReason).toBe(
      'recovered from the journal of a run that finished (verdict fail, exit 1); the report it wrote then is the full record',
    );
    expect(reportFilesIn(out)).toEqual([...REPORT_FILES]);
    expect(readFileSync(join(dir, 'report.json'), 'utf8')).toBe('{}');
  });

  it('refuses a directory without a journal, or one that is no journal', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'petload-recover-'));
    await expect(recoverReport(dir)).rejects.toThrow(/holds no journal \(journal\.ndjson\)/);
    writeFileSync(join(dir, 'journal.ndjson'), '{"type":"head","schemaVersion":99}\n');
    await expect(recoverReport(dir)).rejects.toThrow(
      /its journal format is version 99; this petload reads versions 1 and 2/,
    );
    writeFileSync(join(dir, 'journal.ndjson'), '');
    await expect(recoverReport(dir)).rejects.toThrow(/does not begin with a journal head line/);
    expect(existsSync(join(dir, 'report.json'))).toBe(false);
  });
});

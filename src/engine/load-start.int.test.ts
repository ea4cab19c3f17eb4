/**
 * Load and probes do not starve each other (docs/schedule.md, "Probes and load"), in real runs against the embedded
 * reference server (x60 clock: a minute window lasts a real second). A load phase beside `enforce` on the plan's one
 * key starts once the window enforce's 429 spent has ended, sends what it planned, and its threshold judges data; a
 * phase that sends far below its plan says so with the cause the key states knew, in the notes and on the console.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseScenarioText } from '../config/load-scenario.js';
import { renderConsoleSummary } from '../outputs/console.js';
import { runScenario } from './run.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

async function run(yaml: string) {
  const dir = mkdtempSync(join(tmpdir(), 'petload-load-start-'));
  dirs.push(dir);
  const lines: string[] = [];
  const notices: string[] = [];
  const result = await runScenario({
    scenario: parseScenarioText(yaml, 's.yaml'),
    target: { kind: 'embedded', timeScale: 60 },
    plans: ['free'],
    reportDir: dir,
    log: (l) => lines.push(l),
    notice: (l) => notices.push(l),
  });
  return { ...result, lines, notices };
}

/** The load note of phase 1 for free: `planned 30, sent 30 (0 retries), …`. */
const loadNote = (notes: readonly string[]) => {
  const note = notes.find((n) => n.startsWith('load phase 1 (constant-rate) [free]: planned'));
  const m = /planned (\d+), sent (\d+) \((\d+) retries\)/.exec(note ?? '');
  return m ? { planned: Number(m[1]), first: Number(m[2]) - Number(m[3]) } : null;
};

describe('a load phase beside enforce on one key', { timeout: 60_000 }, () => {
  it('starts on a window the probe did not spend: it sends its plan and its threshold judges data', async () => {
    const { report, exitCode, lines } = await run(
      [
        'name: enforce-and-load',
        'description: enforce beside a load at half the limit',
        'probes: [enforce]',
        'load:',
        '  phases:',
        '    - { executor: constant-rate, rate: 50%, duration: 1m }',
        'thresholds:',
        '  - "count(429) == 0"',
      ].join('\n'),
    );
    const sent = loadNote(report.notes);
    expect(sent, report.notes.join('\n')).not.toBeNull();
    expect(sent!.planned).toBeGreaterThanOrEqual(29);
    // Every planned arrival went out (a key held by enforce's 429 sent 1 of 30 before).
    expect(sent!.first).toBe(sent!.planned);
    const threshold = report.thresholds.find((t) => t.expression === 'count(429) == 0')!;
    expect(threshold.observed).toBe(0);
    expect(threshold.ok).toBe(true);
    expect(report.traffic?.measured).toBe('load');
    expect(report.operations.reduce((n, op) => n + op.count, 0)).toBe(sent!.first);
    // The wait is said, naming the probe whose 429 held the key, in the log and the report's notes.
    const wait = /^load: starts \d+(\.\d)? s after the probes .*free#1 \(…\w{4}\) by probe enforce's 429/;
    expect(lines.some((l) => wait.test(l))).toBe(true);
    expect(report.notes.some((n) => wait.test(n))).toBe(true);
    expect(report.notes.some((n) => /sent \d+ of ~\d+ requests/.test(n))).toBe(false);
    expect(renderConsoleSummary(report, { color: false })).not.toContain('no load');
    expect(exitCode).toBe(0);
  });

  it('a phase that sends far below its plan says so, with the cause, in the notes and on the console', async () => {
    const { report, notices } = await run(
      [
        'name: over-the-limit',
        'description: three times the limit on one key',
        'load:',
        '  phases:',
        '    - { executor: constant-rate, rate: 300%, duration: 1m }',
      ].join('\n'),
    );
    const sent = loadNote(report.notes)!;
    expect(sent.first).toBeLessThan(0.8 * sent.planned);
    const shortfall = new RegExp(
      `^load phase 1 \\(constant-rate\\) \\[free\\] sent ${sent.first} of ~${sent.planned} requests: \\d+ held back: free#1 \\(…\\w{4}\\) (in the backoff after a refusal|waiting out a 429 of load phase 1 \\(constant-rate\\)|at the end of its Remaining)`,
    );
    expect(
      report.notes.some((n) => shortfall.test(n)),
      report.notes.join('\n'),
    ).toBe(true);
    expect(notices.some((l) => shortfall.test(l.replace(/^petload: /, '')))).toBe(true);
  });
});

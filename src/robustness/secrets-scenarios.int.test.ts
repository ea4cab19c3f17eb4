/**
 * Secrets, every shipped scenario: each runs against a reference server that knows recognisable keys (an
 * external target, as in production: the engine did not make the keys), on a scaled clock shared by both, and
 * nothing it prints (log, notices, the console summary) or writes (all four reports) holds any part of a key.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseKeys } from '../config/keys-file.js';
import { loadScenario, shippedScenarioNames } from '../config/load-scenario.js';
import { createClock } from '../core/clock.js';
import { RUN_EVENT_TYPES } from '../core/run-events.js';
import { runScenario } from '../engine/run.js';
import { renderConsoleSummary } from '../outputs/console.js';
import { createReferenceServer } from '../reference-server/index.js';
import { filesUnder, findSecret, recognisableKey } from '../testing/secrets.js';

/** Scales that keep each scenario to a few seconds of real time (day-pacing's day lasts 1.5 s, plan-audit's about 2). */
const SCALE: Record<string, number> = { 'day-pacing': 57_600, capacity: 10, 'plan-audit': 600 };

describe('no key in anything a run prints or writes', () => {
  it.each(shippedScenarioNames())('%s', { timeout: 60_000 }, async (name) => {
    const scenario = loadScenario(name);
    const entries = [
      { key: recognisableKey('free'), plan: 'free', sacrificial: true },
      { key: recognisableKey('free'), plan: 'free' },
      { key: recognisableKey('pro'), plan: 'pro' },
      { key: recognisableKey('pro'), plan: 'pro' },
      { key: recognisableKey('business'), plan: 'business' },
      // The plan audit's key: only plan-audit uses it, and spends Free's day at 60 a minute.
      { key: recognisableKey('free'), plan: 'free', audit: true },
    ];
    const keys = parseKeys({ keys: entries }, 'test');
    const clock = createClock(SCALE[name] ?? 300);
    const server = await createReferenceServer({ keys, clock });
    const dir = mkdtempSync(join(tmpdir(), `petload-secrets-${name}-`));
    const printed: string[] = [];
    const streamed: string[] = [];
    try {
      const result = await runScenario({
        scenario,
        // Announce and read the quota as for a production target; day-pacing and capacity use up a key's day.
        target: { kind: 'external', url: server.url, keys, clock, treatAsRemote: true, allowQuotaExhaustion: true },
        reportDir: dir,
        log: (l) => printed.push(l),
        notice: (l) => printed.push(l),
        onProgress: (p) => printed.push(JSON.stringify(p)),
        // Every event of the run's stream, as a sink (a journal, a live page, metrics) would get it.
        subscribe: (events) => {
          for (const type of RUN_EVENT_TYPES) events.on(type, (e) => streamed.push(JSON.stringify(e)));
        },
      });
      printed.push(
        renderConsoleSummary(result.report, { color: false, ...(result.files ? { files: result.files } : {}) }),
      );
      expect(result.report.totals.requests).toBeGreaterThan(0);
    } finally {
      await server.close();
    }
    const secrets = entries.map((e) => e.key);
    expect(findSecret(printed.join('\n'), secrets)).toBeNull();
    expect(findSecret(streamed.join('\n'), secrets)).toBeNull();
    expect(streamed.length).toBeGreaterThan(0);
    const files = filesUnder(dir);
    expect(files.map((f) => f.path.slice(dir.length + 1)).sort()).toEqual([
      'journal.ndjson',
      'junit.xml',
      'report.html',
      'report.json',
      'summary.md',
    ]);
    for (const f of files) expect(findSecret(f.text, secrets), f.path).toBeNull();
  });
});

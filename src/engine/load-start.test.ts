import { describe, expect, it } from 'vitest';
import { MINUTE_MS } from '../api/plans.js';
import { parseScenarioText } from '../config/load-scenario.js';
import type { LoadOutcome } from '../executors/run-load.js';
import { loadSentNone, trafficWord, trafficWords } from '../metrics/traffic.js';
import { testKey } from '../testing/exchange-builder.js';
import { estimateRequests } from './estimate.js';
import { shortfallLines } from './load-start.js';
import { planSchedule } from './schedule.js';

const freeKeys = (n: number) => ({
  plan: 'free' as const,
  keys: Array.from({ length: n }, (_, i) => ({ label: `free#${i + 1}`, quota: 60, sacrificial: false })),
});

describe('the schedule: keys a probe leaves held', () => {
  it('enforce alone leaves its key refused until its window ends', () => {
    const s = planSchedule({ probes: ['enforce'], plans: [freeKeys(1)] });
    expect(s.held).toEqual([{ label: 'free#1', probe: 'enforce', until: MINUTE_MS + 1000 }]);
  });

  it('a probe that waits out the 429 frees the key again', () => {
    const s = planSchedule({ probes: ['enforce', 'retry-after-honest'], plans: [freeKeys(1)] });
    expect(s.held).toEqual([]);
  });

  it('the estimate starts the load after the held window, and only when there is a load', () => {
    const withLoad = parseScenarioText(
      'name: t\ndescription: t\nprobes: [enforce]\nload:\n  phases:\n    - { executor: constant-rate, rate: 50%, duration: 1m }\n',
      't.yaml',
    );
    const e = estimateRequests(withLoad, [testKey('free')], ['free'], { scale: 60 });
    expect(e.loadAtMs).toBe(MINUTE_MS + 1000);
    expect(e.durationMs).toBe(MINUTE_MS + 1000 + MINUTE_MS);
    const probesOnly = parseScenarioText('name: t\ndescription: t\nprobes: [enforce]\n', 't.yaml');
    const p = estimateRequests(probesOnly, [testKey('free')], ['free'], { scale: 60 });
    expect(p.loadAtMs).toBe(p.schedule.durationMs);
  });
});

const counts = { retries: 0, accepted: 0, refused: 0, answered: 0, failed: 0, dropped: 0, gaveUp: 0 };

describe('shortfallLines', () => {
  const outcome = (sent: number, heldBack: number): LoadOutcome => ({
    phases: [
      {
        index: 1,
        executor: 'constant-rate',
        label: 'phase 1 (constant-rate)',
        durationMs: MINUTE_MS,
        startedAt: 1_000_000,
        plans: [
          {
            plan: 'free',
            ...counts,
            planned: 30,
            sent,
            heldBack,
            heldBackBy:
              heldBack > 0
                ? [{ cause: 'free#1 (…wxyz) waiting out a 429 of probe enforce', count: heldBack, until: 1_058_000 }]
                : [],
          },
        ],
      },
    ],
    suspectedBans: [],
    stopped: null,
  });

  it('names a phase that sent nothing, and why', () => {
    expect(shortfallLines(outcome(0, 30))).toEqual([
      'load phase 1 (constant-rate) [free] sent 0 of ~30 requests: 30 held back: free#1 (…wxyz) waiting out a 429 of probe enforce until 58 s into the phase',
    ]);
  });

  it('says nothing of a phase that sent its plan, or nearly', () => {
    expect(shortfallLines(outcome(30, 0))).toEqual([]);
    expect(shortfallLines(outcome(24, 6))).toEqual([]);
  });
});

describe('the words of the latency table', () => {
  it('never call a run whose load phases sent nothing a run without load', () => {
    const sentNone = {
      traffic: { measured: 'probes' as const, load: ['phase 1 (constant-rate)'], probes: ['enforce'] },
    };
    expect(trafficWords('probes', sentNone)).toBe(
      "the probes' requests (the load sent none: phase 1 (constant-rate); see the notes for why)",
    );
    expect(trafficWord('probes', sentNone)).toBe('probes (the load sent none)');
    const noLoad = { traffic: { measured: 'probes' as const, load: [], probes: ['enforce'] } };
    expect(trafficWords('probes', noLoad)).toBe("the probes' requests (this run has no load)");
    expect([loadSentNone(sentNone), loadSentNone(noLoad)]).toEqual([true, false]);
    const sent = { traffic: { measured: 'load' as const, load: ['phase 1 (constant-rate)'], probes: [] } };
    expect(loadSentNone(sent)).toBe(false);
  });
});

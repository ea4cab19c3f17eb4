/**
 * The promise figures compare judges, each against its noise (docs/compare.md, "Promises"), on the sample report
 * made by the real pipeline with its facts changed as another run of the target would give them.
 */
import { describe, expect, it } from 'vitest';
import type { Admission, Report } from '../report/schema.js';
import { sampleReport } from '../testing/sample-report.js';
import { compareExitCode, compareReports } from './compare.js';
import { headline } from './drifts.js';
import { compareHtml } from './html.js';
import { compareMarkdown } from './markdown.js';
import { promiseFigures } from './promises.js';

const base = sampleReport();

/** A copy whose free key's 429s have their Retry-After (and Reset's wait) mapped. */
function refusals(map: (ra: number, reset: number | undefined) => [number, number | undefined]): Report {
  const r = structuredClone(base);
  for (const k of r.keyTimelines)
    k.refusals = k.refusals.map(([t, ra, reset]) => {
      if (ra === null) return [t, ra, reset ?? null];
      const [a, w] = map(ra, reset ?? undefined);
      return w === undefined ? [t, a] : [t, a, w];
    });
  return r;
}

const figure = (b: Report, c: Report, name: string) => promiseFigures(b, c, 'free').find((f) => f.figure === name);

describe('promises: Retry-After', () => {
  it('holds each 429 to its own Reset: a halved Retry-After drifts, wherever in the window the 429s fell', () => {
    expect(base.keyTimelines.find((k) => k.plan === 'free')!.refusals.length).toBeGreaterThan(10);
    expect(figure(base, base, 'Retry-After against Reset')).toMatchObject({ drift: false });
    // The same promise met later in the window: both figures 20 s lower, none short.
    const later = refusals((ra, w) => [ra - 20, w === undefined ? undefined : w - 20]);
    expect(figure(base, later, 'Retry-After against Reset')!.drift).toBe(false);
    const halved = refusals((ra, w) => [Math.floor(ra / 2), w]);
    const f = figure(base, halved, 'Retry-After against Reset')!;
    expect(f.drift).toBe(true);
    const words = /^Retry-After ([\d.]+) s of Reset's ([\d.]+) s, ([\d.]+) s (short|over) \(60 429s\)$/;
    const [, raB, resetB, byB] = words.exec(f.baseline)!;
    const [, raC, resetC, byC, shortC] = words.exec(f.current)!;
    expect(Number(byB)).toBeLessThanOrEqual(1);
    expect(resetC).toBe(resetB);
    expect(Number(raC)).toBeLessThan(Number(raB) / 2 + 1);
    expect(shortC).toBe('short');
    expect(Number(byC)).toBeGreaterThan(2);
    // Within the resolution of Retry-After, Reset and Date: the same promise.
    expect(
      figure(
        base,
        refusals((ra, w) => [ra - 2, w]),
        'Retry-After against Reset',
      )!.drift,
    ).toBe(false);
    expect(
      figure(
        base,
        refusals((ra, w) => [ra - 3, w]),
        'Retry-After against Reset',
      )!.drift,
    ).toBe(true);
  });

  it('reads a report of an older version (no Reset waits): the Retry-After values alone, with a wider margin', () => {
    const old = refusals((ra) => [ra, undefined]);
    expect(figure(base, old, 'Retry-After against Reset')).toBeUndefined();
    expect(figure(old, old, 'Retry-After')!.drift).toBe(false);
    // 17 % lower: within 25 %, as the spread of where 429s fall allows.
    expect(
      figure(
        old,
        refusals((ra) => [Math.round(ra * 0.83), undefined]),
        'Retry-After',
      )!.drift,
    ).toBe(false);
    const halved = figure(
      old,
      refusals((ra) => [Math.floor(ra / 2), undefined]),
      'Retry-After',
    )!;
    expect(halved.drift).toBe(true);
    expect(halved.baseline).toMatch(/^median \d+(\.\d)? s of 60 429s$/);
  });
});

function admitted(accepted: number, extra: Partial<Admission> = {}): Report {
  const r = structuredClone(base);
  const a = { plan: 'free', window: 'minute', accepted, sold: 60, tolerancePercent: 0, atLeast: false } as const;
  r.admission = [{ ...a, excessPercent: 0, within: true, ...extra }];
  return r;
}

describe('promises: counts', () => {
  it('accepted per minute drifts by more than one request, or the declared tolerance', () => {
    expect(figure(admitted(60), admitted(61), 'accepted per minute')!.drift).toBe(false);
    const f = figure(admitted(60), admitted(62), 'accepted per minute')!;
    expect(f).toMatchObject({ baseline: '60/min (sold 60)', current: '62/min (sold 60)', drift: true });
    const tolerant = { tolerancePercent: 5 };
    expect(figure(admitted(60, tolerant), admitted(63, tolerant), 'accepted per minute')!.drift).toBe(false);
    expect(figure(admitted(60, tolerant), admitted(64, tolerant), 'accepted per minute')!.drift).toBe(true);
    // A count that met no refusal is a lower bound: shown, not judged.
    expect(figure(admitted(60), admitted(90, { atLeast: true }), 'accepted per minute')).toMatchObject({
      current: 'at least 90/min (sold 60)',
      drift: false,
    });
    // Not measured by both: not listed.
    expect(figure(base, admitted(60), 'accepted per minute')).toBeUndefined();
  });

  function banned(threshold: number, seconds: number): Report {
    const r = structuredClone(base);
    const outcome = { ...structuredClone(r.checks[0]!.byPlan[0]!), plan: 'free' as const, status: 'pass' as const };
    outcome.info = { banThreshold: threshold, banDurationSeconds: seconds, banDurationUncertaintySeconds: 2 };
    const ban = r.checks.find((c) => c.id === 'ban.probe')!;
    ban.byPlan = [outcome];
    return r;
  }

  it("the ban's threshold drifts by more than one request, its length beyond both uncertainties and 1 s", () => {
    const b = banned(10, 900);
    expect(promiseFigures(b, banned(11, 904), 'free').filter((f) => f.drift)).toEqual([]);
    expect(
      promiseFigures(b, banned(12, 906), 'free')
        .filter((f) => f.drift)
        .map((f) => `${f.figure}: ${f.baseline} -> ${f.current}`),
    ).toEqual([
      'ban threshold: 10 requests inside Retry-After -> 12 requests inside Retry-After',
      'ban length: 900 s -> 906 s',
    ]);
  });
});

describe('promises: the verdict', () => {
  it('a drifted promise is a regression named per plan, exit code 1, in the headline', () => {
    const halved = refusals((ra, w) => [Math.floor(ra / 2), w]);
    const c = compareReports(base, halved);
    expect(c.regressions.filter((r) => r.kind === 'promise').map((r) => r.message)).toEqual([
      expect.stringMatching(/^free: Retry-After against Reset Retry-After .* -> Retry-After .* \(drift: /),
    ]);
    expect(compareExitCode(c)).toBe(1);
    expect(headline(c)).toBe('REGRESSED: 1 promise drifted');
    expect(compareExitCode(compareReports(base, base))).toBe(0);
    // compare.md and compare.html list every promise figure per plan, and which drifted.
    const md = compareMarkdown(c);
    expect(md).toContain('### Promises per plan');
    expect(md).toMatch(
      /^\| free \| Retry-After against Reset \| Retry-After .* \| \*\*drift\*\*: the median shortfall/m,
    );
    expect(compareHtml(c)).toMatch(/<table class="data" id="promises">.*<strong>drift<\/strong>/s);
  });
});

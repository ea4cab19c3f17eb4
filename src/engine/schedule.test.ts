import { describe, expect, it } from 'vitest';
import { MINUTE_MS, type PlanName } from '../api/plans.js';
import { DEFAULT_PROBES, type ProbeName } from '../probes/names.js';
import { describeSchedule } from './schedule-report.js';
import {
  FASTEST_KEYS,
  planSchedule,
  planWithReasons,
  STRADDLE_MARGIN_MS,
  type Schedule,
  type ScheduleInput,
  type Step,
} from './schedule.js';

const QUOTA = { free: 60, pro: 300, business: 1000 } as const;
const input = (
  keysPerPlan: number,
  probes: readonly ProbeName[] = DEFAULT_PROBES,
  plans: (keyof typeof QUOTA)[] = ['free', 'pro', 'business'],
): ScheduleInput => ({
  probes,
  plans: plans.map((plan) => ({
    plan,
    keys: Array.from({ length: keysPerPlan }, (_, i) => ({
      label: `${plan}#${i + 1}`,
      quota: QUOTA[plan],
      sacrificial: false,
    })),
  })),
});
const step = (s: Schedule, probe: ProbeName, plan: PlanName | null) =>
  s.steps.find((st) => st.probe === probe && st.plan === plan)!;

describe('planSchedule', () => {
  it('three keys per plan, all plans: about two windows, the probes that need a fresh window on distinct keys at once', () => {
    const s = planWithReasons(input(3));
    expect(s.windows).toBeGreaterThan(1);
    expect(s.windows).toBeLessThanOrEqual(2.1);
    expect(s.reasons).toEqual([]);
    for (const plan of ['free', 'pro', 'business'] as const) {
      const [e, b] = [step(s, 'enforce', plan), step(s, 'burst', plan)];
      expect(e.keys).not.toEqual(b.keys);
      // Both in the key's first window, within seconds of the start.
      expect([e.window, b.window]).toEqual([0, 0]);
      expect(Math.max(e.at, b.at)).toBeLessThan(5000);
      // The 429s are waited out on the same keys, in their second window.
      expect(step(s, 'retry-after-honest', plan)).toMatchObject({
        keys: e.keys,
        window: 1,
        need: 'refusal',
        requests: 1,
      });
      expect(step(s, 'restore', plan)).toMatchObject({ keys: b.keys, window: 1, need: 'refusal', requests: 1 });
      // Headroom probes share a third key: what they cost fits one window of it.
      const third = step(s, 'input', plan).keys[0]!;
      expect([e.keys[0], b.keys[0]]).not.toContain(third);
      expect(s.requestsByKey[third]).toBeLessThanOrEqual(QUOTA[plan]);
    }
  });

  it('fits the requests without a key into the address windows, one quota-drain across a boundary on a key window opened later', () => {
    const s = planSchedule(input(3));
    const drains = s.steps.filter((st) => st.probe === 'quota-drain');
    expect(drains).toHaveLength(3);
    // auth 16 + reachability 1 leave 43 in the first address window: a drain starting there must last across it.
    const first = drains.find((d) => d.plan === 'free')!;
    expect(first.straddle).toBe(true);
    expect(first.at).toBeGreaterThanOrEqual(STRADDLE_MARGIN_MS);
    // The address lane runs one step after another.
    const lane = s.steps.filter((st) => st.unkeyed > 0);
    for (let i = 1; i < lane.length; i++) expect(lane[i]!.at).toBeGreaterThanOrEqual(lane[i - 1]!.ends - 1);
    // 16 + 3 x 50, and one refused request per crossing.
    expect(s.unkeyed).toBe(16 + 150 + drains.filter((d) => d.straddle).length);
  });

  it('one key per plan: longer, at most four windows, says why and how many keys give the fastest pass', () => {
    const s = planWithReasons(input(1));
    expect(s.windows).toBeGreaterThan(2.5);
    expect(s.windows).toBeLessThanOrEqual(4);
    expect(s.reasons.join('\n')).toMatch(/free has one key/);
    expect(s.reasons.join('\n')).toMatch(
      new RegExp(`with ${FASTEST_KEYS} keys per plan the pass would take about 2\\.\\d windows`),
    );
    expect(s.skipped.map((k) => k.probe)).toEqual(['key-isolation', 'key-isolation', 'key-isolation']);
    // One 429 serves both waits; burst needs a later window of the same key.
    const free = (p: ProbeName) => step(s, p, 'free');
    expect(free('retry-after-honest')).toMatchObject({ window: 1, requests: 1 });
    expect(free('restore')).toMatchObject({ window: 1, requests: 1 });
    expect(free('burst').window).toBeGreaterThanOrEqual(2);
    expect(s.requestsByKey['free#1']).toBe(61 + 1 + 1 + 43 + 5 + 2 + 65);
  });

  it('two keys per plan: key-isolation and the headroom probes go to the second window', () => {
    const s = planWithReasons(input(2, DEFAULT_PROBES, ['free']));
    expect(step(s, 'key-isolation', 'free')).toMatchObject({ keys: ['free#1', 'free#2'], window: 1 });
    expect(step(s, 'input', 'free').window).toBe(1);
    expect(s.windows).toBeLessThan(2.2);
  });

  it('more keys never make it slower, and a single plan takes about one window and a bit', () => {
    const three = planSchedule(input(3)).durationMs;
    expect(planSchedule(input(8)).durationMs).toBeLessThanOrEqual(three);
    const one = planSchedule(input(3, DEFAULT_PROBES, ['pro']));
    expect(one.windows).toBeLessThan(1.2);
  });

  it('a probe with no 429 to wait out exhausts its key first', () => {
    const s = planSchedule(input(1, ['restore'], ['free']));
    expect(step(s, 'restore', 'free').requests).toBe(61 + 1);
    expect(s.durationMs).toBeGreaterThan(MINUTE_MS);
  });

  it('runs the ban probe only on a sacrificial key, last, and keeps that key out of the other probes', () => {
    const base = input(3, [...DEFAULT_PROBES, 'ban'], ['free']);
    const keys = [...base.plans[0]!.keys, { label: 'free#victim', quota: 60, sacrificial: true }];
    const s = planSchedule({ ...base, plans: [{ plan: 'free', keys }] });
    const ban = step(s, 'ban', 'free');
    expect(ban.keys).toEqual(['free#victim']);
    expect(s.steps.filter((st) => st.keys.includes('free#victim'))).toEqual([ban]);
    expect(ban.at).toBeGreaterThanOrEqual(
      Math.max(...s.steps.filter((st) => st !== ban && st.plan === 'free').map((st) => st.ends)) - 1,
    );
    const none = planSchedule(input(3, ['ban'], ['free']));
    expect(none.skipped[0]?.reason).toMatch(/sacrificial/);
  });

  it('scales request time with the clock: on a 60x clock the same plan is the same number of windows', () => {
    const real = planSchedule(input(3));
    const fast = planSchedule({ ...input(3), scale: 60 });
    expect(fast.windows).toBeGreaterThanOrEqual(real.windows);
    expect(fast.windows).toBeLessThan(real.windows * 1.2);
  });

  it('describes every step: when, which plan, probe, key and window', () => {
    const lines = describeSchedule(planWithReasons(input(1, DEFAULT_PROBES, ['free'])));
    expect(lines.some((l) => /^\s+0\.0 s {2}free\s+enforce\s+free#1, window 1, 61 requests$/.test(l))).toBe(true);
    expect(lines.some((l) => /key-isolation\s+skipped: needs two keys/.test(l))).toBe(true);
  });

  it('a long link: two windows and a little at 50, 100 and 200 ms a round trip, no more than 0.05 window over loopback', () => {
    const near = planSchedule(input(3));
    for (const rttMs of [50, 100, 200]) {
      const far = planSchedule({ ...input(3), rttMs });
      expect(far.windows).toBeLessThanOrEqual(2.1);
      expect(far.windows - near.windows).toBeLessThan(0.05);
      // The same requests wherever the target is.
      expect(far.requestsByKey).toEqual(near.requestsByKey);
      expect(far.unkeyed).toBe(near.unkeyed);
    }
  });

  it('side by side on a long link: the plans count at once, each plan one count at a time; on loopback one at a time', () => {
    const exact = (s: Schedule) => s.steps.filter((st) => st.exact);
    const overlapping = (a: Step, b: Step) => a.at < b.ends && b.at < a.ends;
    const far = planSchedule({ ...input(3), rttMs: 100 });
    for (const plan of ['free', 'pro', 'business'] as const) expect(step(far, 'enforce', plan).at).toBe(0);
    for (const a of exact(far))
      for (const b of exact(far)) if (a !== b && a.plan === b.plan) expect(overlapping(a, b)).toBe(false);
    const near = planSchedule(input(3));
    for (const a of exact(near)) for (const b of exact(near)) if (a !== b) expect(overlapping(a, b)).toBe(false);
    // The counts are what they are near: enforce's and burst's keys, windows and requests.
    const counts = (s: Schedule) =>
      exact(s).map(({ probe, plan, keys, window, requests }) => ({ probe, plan, keys, window, requests }));
    expect(new Set(counts(far).map((c) => JSON.stringify(c)))).toEqual(
      new Set(counts(near).map((c) => JSON.stringify(c))),
    );
  });

  it('a long link: the headroom probes of a key whose quota-drain waits for the next address window go first', () => {
    const s = planSchedule({ ...input(3), rttMs: 100 });
    const drain = s.steps.find((st) => st.probe === 'quota-drain' && st.straddle && st.at > MINUTE_MS)!;
    const third = s.steps.filter((st) => st.plan === drain.plan && st.keys[0] === drain.keys[0] && st !== drain);
    expect(third.map((st) => st.probe).sort()).toEqual(
      ['create-get', 'deprecated', 'input', 'list', 'unknown-id', 'what-counts'].sort(),
    );
    for (const st of third) expect(st.ends).toBeLessThanOrEqual(drain.at);
    // On loopback the order is the first: the drains first, nothing gained by moving them.
    const near = planSchedule(input(3));
    const nearDrain = near.steps.find((st) => st.probe === 'quota-drain' && st.plan === 'free')!;
    expect(step(near, 'input', 'free').at).toBeGreaterThanOrEqual(nearDrain.ends - 1);
  });
});

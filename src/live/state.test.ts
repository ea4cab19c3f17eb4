import { describe, expect, it } from 'vitest';
import { createRunEvents, type RunEvent } from '../core/run-events.js';
import { LiveState } from './state.js';
import { CheckTally, keyStateCounts, phaseAfter } from './tally.js';

const exchange = (over: Partial<Extract<RunEvent, { type: 'exchange' }>> = {}): RunEvent => ({
  type: 'exchange',
  key: 'free#1',
  plan: 'free',
  operation: 'listPets',
  status: 200,
  latencyMs: 10,
  serviceMs: 10,
  remaining: 5,
  at: 0,
  ...over,
});

const check = (
  id: string,
  plan: 'free' | 'pro' | null,
  status: 'pass' | 'fail' | 'skip',
  message?: string,
): RunEvent => ({
  type: 'check',
  id,
  plan,
  status,
  counts: { passed: 0, failed: 0, skipped: 0 },
  ...(message !== undefined ? { message } : {}),
});

/** A state on a clock the test moves, fed through a real event stream. */
function fixture() {
  let now = 1_000_000;
  const events = createRunEvents();
  const state = new LiveState({ now: () => now, reportHref: (file) => (file === null ? null : 'report.html') });
  state.subscribe(events);
  return { events, state, advance: (ms: number) => (now += ms) };
}

describe('the live page state', () => {
  it('counts checks as the report does: a failed minor check warns, a failed critical one fails', () => {
    const t = new CheckTally();
    for (const e of [
      check('auth.challenge', 'free', 'fail', 'no WWW-Authenticate'),
      check('contract.error-shape', 'free', 'pass'),
      check('contract.error-shape', 'pro', 'fail', 'no code'),
      check('ratelimit.enforced', 'free', 'pass'),
      check('deprecation.announced', null, 'skip'),
    ]) {
      if (e.type === 'check') t.add(e);
    }
    expect(t.counts()).toEqual({ failed: 1, warned: 1, passed: 1, skipped: 1 });
    expect(t.problems(10).map((p) => [p.id, p.plan, p.standing, p.message])).toEqual([
      ['contract.error-shape', 'pro', 'failed', 'no code'],
      ['auth.challenge', 'free', 'warned', 'no WWW-Authenticate'],
    ]);
  });

  it('follows traffic per real second, latency per operation, keys by label and the phase', () => {
    const { events, state, advance } = fixture();
    events.emit({
      type: 'started',
      scenario: 'smoke',
      target: 'http://127.0.0.1:1/v1',
      plans: ['free'],
      keys: [{ label: 'free#1', plan: 'free' }],
      at: 'now',
    });
    expect(state.snapshot().runPhase).toBe('probes');
    for (let i = 0; i < 10; i++) events.emit(exchange({ latencyMs: i < 9 ? 10 : 100 }));
    events.emit(exchange({ status: 429, remaining: 0 }));
    events.emit(exchange({ key: 'unknown key', plan: null, status: 401, remaining: null }));
    advance(1000);
    events.emit(exchange({ status: null, remaining: null, operation: null }));
    const s = state.snapshot();
    expect(s.traffic.sent).toBe(13);
    expect(s.traffic.perSecond).toBe(12);
    expect(s.traffic.status).toEqual({ s2xx: 10, s4xx: 1, s429: 1, s5xx: 0, errors: 1, other: 0 });
    expect(s.traffic.series.t).toEqual([0, 1]);
    expect(s.traffic.series.s429).toEqual([1, 0]);
    const list = s.operations.find((o) => o.operation === 'listPets')!;
    expect(list.count).toBe(12);
    expect(list.p50Ms).toBeCloseTo(10, 1);
    expect(list.p99Ms).toBeCloseTo(100, 0);
    expect(s.operations.map((o) => o.operation)).toEqual(['listPets', 'other']);
    // The probe's invalid credential is no key of the run; the key's Remaining is the last one sent.
    expect(s.keys).toEqual([
      { label: 'free#1', plan: 'free', sent: 12, refused: 1, remaining: 0, heldBack: false, suspectedBan: false },
    ]);
    events.emit({
      type: 'keys',
      keys: [{ label: 'free#1', plan: 'free', sent: 12, refused: 1, heldBack: true, suspectedBan: false }],
    });
    expect(state.snapshot().keys[0]!.heldBack).toBe(true);
    const progress = {
      phase: 'phase 1',
      elapsedMs: 30_000,
      totalMs: 60_000,
      sent: 13,
      rate: 1,
      s2xx: 10,
      s4xx: 1,
      s429: 1,
      p99Ms: 100,
    };
    events.emit({ type: 'phase', progress });
    expect(state.snapshot()).toMatchObject({ runPhase: 'load', phase: progress });
  });

  it('keeps no more than the chart window of seconds, quiet seconds as zeros', () => {
    const { events, state, advance } = fixture();
    events.emit(exchange());
    advance(2000);
    events.emit(exchange());
    expect(state.snapshot().traffic.series.sent).toEqual([1, 0, 1]);
    advance(1000 * 1000);
    events.emit(exchange());
    const { t } = state.snapshot().traffic.series;
    expect(t).toHaveLength(300);
    expect(t.at(-1)).toBe(1002);
  });

  it("shows each plan's probes and the schedule's time left in real seconds", () => {
    const { events, state, advance } = fixture();
    events.emit({
      type: 'planned',
      durationMs: 120_000,
      scale: 10,
      steps: [
        { probe: 'auth', plan: null, at: 0, ends: 1000 },
        { probe: 'enforce', plan: 'free', at: 0, ends: 60_000 },
        { probe: 'list', plan: 'free', at: 60_000, ends: 70_000 },
      ],
    });
    const progress = {
      probe: 'enforce',
      plan: 'free' as const,
      state: 'start' as const,
      index: 1,
      total: 2,
      perPlan: [],
    };
    events.emit({ type: 'probe', progress });
    advance(2000);
    let s = state.snapshot();
    expect(s.expectedS).toBe(12);
    // 70 s of run clock at x10 is 7 s; 2 have gone.
    expect(s.probes).toEqual([
      { plan: null, done: 0, total: 1, running: [], leftS: 0 },
      { plan: 'free', done: 0, total: 2, running: ['enforce'], leftS: 5 },
    ]);
    events.emit({ type: 'probe', progress: { ...progress, state: 'done' } });
    s = state.snapshot();
    expect(s.probes[1]).toMatchObject({ done: 1, running: [], leftS: 5 });
  });

  it('at the end: the verdict, the report count of checks, and where report.html is', () => {
    const { events, state } = fixture();
    events.emit(check('ratelimit.enforced', 'free', 'pass'));
    expect(state.snapshot().checks).toMatchObject({ passed: 1, skipped: 0 });
    events.emit({
      type: 'ended',
      verdict: 'pass',
      exitCode: 0,
      files: { html: '/tmp/r/report.html' },
      summary: { passed: 1, failed: 0, warnings: 0, skipped: 9 },
    });
    const s = state.snapshot();
    expect(s.runPhase).toBe('ended');
    expect(s.checks).toMatchObject({ failed: 0, warned: 0, passed: 1, skipped: 9 });
    expect(s.ended).toEqual({
      verdict: 'pass',
      exitCode: 0,
      reason: null,
      reportFile: '/tmp/r/report.html',
      reportHref: 'report.html',
    });
    expect(state.reportFile()).toBe('/tmp/r/report.html');
  });

  it('phases and key states', () => {
    expect(phaseAfter('starting', exchange())).toBe('starting');
    expect(phaseAfter('load', { type: 'started', scenario: '', target: '', plans: [], keys: [], at: '' })).toBe('load');
    expect(phaseAfter('ended', { type: 'ended', verdict: 'pass', exitCode: 0, files: null })).toBe('ended');
    const k = { label: 'a', plan: 'free' as const, sent: 1, refused: 0, heldBack: false, suspectedBan: false };
    expect(keyStateCounts([k, { ...k, refused: 2, heldBack: true }, { ...k, refused: 1, suspectedBan: true }])).toEqual(
      { held_back: 1, refused: 2, suspected_banned: 1 },
    );
  });
});

import { describe, expect, it } from 'vitest';
import { PLANS } from '../api/plans.js';
import { AddressLimiter, Quota } from './limiter.js';

const T0 = Date.UTC(2030, 0, 1, 12, 0, 0) + 400; // 400 ms into a second
const S = 1000;

describe('Quota', () => {
  it('opens a minute window at the first request, aligned down to the second, and counts down', () => {
    const q = new Quota({ perMinute: 3, perDay: 100 });
    q.roll(T0);
    expect(q.view('minute')).toEqual({ window: 'minute', limit: 3, remaining: 3, resetMs: T0 - 400 + 60 * S });
    q.consume(T0);
    expect(q.view('minute').remaining).toBe(2);
    q.consume(T0);
    q.consume(T0);
    expect(q.refusedUntil()).toBe(T0 - 400 + 60 * S);
    expect(q.view('minute').remaining).toBe(0);
  });

  it('restores the quota once the window has ended, in a new window', () => {
    const q = new Quota({ perMinute: 1, perDay: 100 });
    q.roll(T0);
    q.consume(T0);
    q.roll(T0 + 59 * S);
    expect(q.refusedUntil()).toBe(T0 - 400 + 60 * S);
    q.roll(T0 + 60 * S);
    expect(q.refusedUntil()).toBe(0);
    expect(q.view('minute')).toEqual({ window: 'minute', limit: 1, remaining: 1, resetMs: T0 - 400 + 120 * S });
  });

  it('refuses until the later end when both windows are exhausted, and reports the window that covers the wait', () => {
    const q = new Quota({ perMinute: 2, perDay: 2 });
    q.roll(T0);
    q.consume(T0);
    q.consume(T0);
    const dayEnd = T0 - 400 + 86_400 * S;
    expect(q.refusedUntil()).toBe(dayEnd);
    // windowReport=minute would point at the minute's end, before the wait is over: the day window is shown.
    expect(q.view('minute', dayEnd)).toEqual({ window: 'day', limit: 2, remaining: 0, resetMs: dayEnd });
    expect(q.view('tightest', dayEnd).window).toBe('day');
  });

  it('tightest shows the window with fewer left, the minute on a tie', () => {
    const q = new Quota({ perMinute: 5, perDay: 8 });
    q.roll(T0);
    const tie = new Quota({ perMinute: 5, perDay: 5 });
    tie.roll(T0);
    expect(tie.view('tightest').window).toBe('minute');
    for (let i = 0; i < 5; i++) q.consume(T0);
    expect(q.view('tightest')).toMatchObject({ window: 'minute', remaining: 0 });
    q.roll(T0 + 60 * S);
    expect(q.view('tightest')).toMatchObject({ window: 'day', remaining: 3 });
    const p = new Quota({ perMinute: 5, perDay: 8 });
    p.roll(T0);
    p.consume(T0);
    expect(p.view('tightest')).toMatchObject({ window: 'minute', remaining: 4 });
  });

  it('windowReport=day shows the day window on a minute refusal, with quota left in it', () => {
    const q = new Quota({ perMinute: 1, perDay: 10 });
    q.roll(T0);
    q.consume(T0);
    const until = q.refusedUntil();
    expect(q.view('day', until)).toMatchObject({ window: 'day', limit: 10, remaining: 9 });
  });

  it('shows the refusing window when the reported one ends before the refusal does', () => {
    const q = new Quota({ perMinute: 1, perDay: 10 });
    q.roll(T0);
    q.roll(T0 + 86_380 * S); // a minute window opening 20 s before the day window ends
    q.consume(T0);
    const until = q.refusedUntil();
    expect(q.view('day', until)).toMatchObject({ window: 'minute', remaining: 0, resetMs: until });
  });

  it('shares counters but keeps its own figures with sharedWith', () => {
    const a = new Quota(PLANS.free);
    const b = a.sharedWith(PLANS.pro);
    a.roll(T0);
    a.consume(T0);
    b.roll(T0);
    expect(b.view('minute')).toMatchObject({ limit: 300, remaining: 299 });
  });

  it('loses updates when a snapshot is written back after others consumed', () => {
    const q = new Quota({ perMinute: 10, perDay: 100 });
    q.roll(T0);
    const s1 = q.snapshot();
    const s2 = q.snapshot();
    q.consumeFrom(s1);
    q.consumeFrom(s2);
    expect(q.view('minute').remaining).toBe(9);
  });
});

describe('AddressLimiter', () => {
  it('keeps one quota per address and drops it after a minute idle', () => {
    const a = new AddressLimiter(PLANS.free);
    a.quota('10.0.0.1', T0).consume(T0);
    a.quota('10.0.0.2', T0 + 30 * S).consume(T0);
    expect(a.size).toBe(2);
    a.sweep(T0 + 60 * S);
    expect(a.size).toBe(1);
    expect(a.quota('10.0.0.2', T0 + 61 * S).view('minute').remaining).toBe(59);
    a.sweep(T0 + 200 * S);
    expect(a.size).toBe(0);
  });
});

describe('Quota with a sliding log for the minute', () => {
  it('counts the trailing minute: Reset follows the newest request, a refusal ends when the oldest slides out', () => {
    const q = Quota.of({ perMinute: 3, perDay: 100 }, 'sliding-log');
    q.roll(T0);
    q.consume(T0);
    expect(q.view('minute')).toEqual({ window: 'minute', limit: 3, remaining: 2, resetMs: T0 + 60 * S });
    q.roll(T0 + 2 * S);
    q.consume(T0 + 2 * S);
    // Reset moves forward with the requests: the log drains a minute after its newest one.
    expect(q.view('minute')).toEqual({ window: 'minute', limit: 3, remaining: 1, resetMs: T0 + 62 * S });
    q.roll(T0 + 5 * S);
    q.consume(T0 + 5 * S);
    expect(q.refusedUntil()).toBe(T0 + 60 * S);
    q.roll(T0 + 60 * S);
    // The first request slid out: one place, while the other two still count.
    expect(q.refusedUntil()).toBe(0);
    expect(q.view('minute')).toMatchObject({ remaining: 1, resetMs: T0 + 65 * S });
    q.roll(T0 + 65 * S);
    expect(q.view('minute')).toMatchObject({ remaining: 3 });
  });
});

import { describe, expect, it } from 'vitest';
import { readSlide, risesOf, SentLog } from './sent-log.js';

const W = 60_000;
/** Requests sent at these seconds, each answered 20 ms later; `maybe` for the indices given. */
function logOf(seconds: readonly number[], maybe: ReadonlySet<number> = new Set(), cap?: number): SentLog {
  const log = new SentLog(W, cap);
  for (const [i, s] of seconds.entries()) log.add(s * 1000, s * 1000 + 20, maybe.has(i) ? 'maybe' : 'surely');
  return log;
}
const span = (s: number) => ({ sent: s * 1000, done: s * 1000 + 20 });

describe('SentLog', () => {
  it('counts the requests that surely and perhaps slid out of the trailing minute between two answers', () => {
    const log = logOf([0, 10, 10.5, 30, 50]);
    // Between 50 s and 71.3 s: 0 s and 10 s surely slid out; 10.5 s perhaps (a second of slack for whole seconds).
    expect(log.slidOut(span(50), span(71.3))).toEqual({ lo: 2, hi: 3 });
    // Between 50 s and 58 s: nothing was a minute old.
    expect(log.slidOut(span(50), span(58))).toEqual({ lo: 0, hi: 0 });
    // A request that may not have been counted (not a 2xx) is only perhaps.
    expect(logOf([0, 10, 10.5, 30, 50], new Set([0])).slidOut(span(50), span(71.3))).toEqual({ lo: 1, hi: 3 });
  });

  it('keeps a minute and the slack before its newest request, and says it does not know beyond', () => {
    const log = logOf([0, 1, 2, 70, 71]);
    expect(log.size).toBe(2);
    expect(log.slidOut(span(2), span(70))).toBeNull();
    expect(log.slidOut(span(71), span(140))).toEqual({ lo: 2, hi: 2 });
    // At most `cap` requests: the dropped ones make older questions unanswerable, never short.
    const capped = logOf([0, 1, 2, 3], new Set(), 2);
    expect(capped.size).toBe(2);
    expect(capped.slidOut(span(3), span(62))).toBeNull();
  });

  it('counts the surely counted requests sent from a time on', () => {
    expect(logOf([0, 10, 20, 30], new Set([2])).surelyCountedFrom(10_000)).toBe(2);
  });

  it('reads a rise of Remaining against what slid out: a slide, a plain count, a rise no log explains, or a fall', () => {
    const ok = (remaining: number) => ({ remaining, accepted: true });
    expect(risesOf(ok(57), ok(57))).toEqual([1]);
    expect(risesOf({ remaining: 57, accepted: false }, ok(57))).toEqual([0, 1]);
    expect(readSlide(risesOf(ok(57), ok(57)), { lo: 0, hi: 2 })).toBe('slid');
    expect(readSlide(risesOf(ok(57), ok(56)), { lo: 0, hi: 2 })).toBe('counted');
    expect(readSlide(risesOf(ok(57), ok(56)), { lo: 1, hi: 2 })).toBe('not-a-log');
    expect(readSlide(risesOf(ok(57), ok(59)), { lo: 0, hi: 2 })).toBe('not-a-log');
    expect(readSlide(risesOf(ok(57), ok(50)), { lo: 0, hi: 2 })).toBe('fell');
    // A refusal after a refusal, Remaining 0 both: a plain count (refusals not counted), whatever may have slid out.
    const refused = { remaining: 0, accepted: false };
    expect(readSlide(risesOf(refused, refused), { lo: 0, hi: 2 })).toBe('counted');
    expect(readSlide(risesOf(refused, refused), { lo: 1, hi: 2 })).toBe('slid');
  });
});

describe('SentLog in answer order', () => {
  it('puts an answer that completed a hair before the last one in its place', () => {
    const log = new SentLog(W);
    log.add(0, 5000, 'surely');
    log.add(1000, 1020, 'surely');
    log.add(2000, 2020, 'maybe');
    // By 62.5 s, 1 s surely slid out; 2 s (not a 2xx) and 0 s (answered at 5 s: it may have arrived then) perhaps.
    expect(log.slidOut(span(2), span(62.5))).toEqual({ lo: 1, hi: 3 });
  });
});

import { describe, expect, it } from 'vitest';
import { createProgressReporter, progressLine, type ProgressStats } from './progress.js';

const stats = (parts: Partial<ProgressStats> = {}): ProgressStats => ({
  phase: 'phase 1 (constant-rate)',
  elapsedMs: 65_000,
  totalMs: 180_000,
  sent: 1234,
  rate: 57,
  s2xx: 1200,
  s4xx: 30,
  s429: 4,
  p99Ms: 12.34,
  ...parts,
});

function sink(isTTY: boolean, columns?: number) {
  const out: string[] = [];
  return { out, stream: { isTTY, ...(columns === undefined ? {} : { columns }), write: (t: string) => out.push(t) } };
}

describe('progressLine', () => {
  it('shows elapsed of total, sent, rate, 2xx / 4xx / 429 and p99', () => {
    expect(progressLine(stats())).toBe(
      'phase 1 (constant-rate): 1 min 5 s of 3 min 0 s, sent 1234, 57.0/s, 2xx 1200 / 4xx 30 / 429 4, p99 12.3 ms',
    );
    expect(progressLine(stats({ totalMs: 0, elapsedMs: 2500, p99Ms: null }))).toBe(
      'phase 1 (constant-rate): 2.5 s, sent 1234, 57.0/s, 2xx 1200 / 4xx 30 / 429 4, p99 -',
    );
  });

  it('says what a phase past its length waits for', () => {
    expect(progressLine(stats({ elapsedMs: 181_000, waiting: 'its last answers (3 in flight)' }))).toBe(
      'phase 1 (constant-rate): 3 min 1 s of 3 min 0 s, sent 1234, 57.0/s, 2xx 1200 / 4xx 30 / 429 4, p99 12.3 ms; ' +
        'waiting for its last answers (3 in flight)',
    );
  });

  it('on a narrow terminal, sheds words, not figures', () => {
    // 110 columns: the whole line (134 characters) does not fit, the compact one (103) does.
    const { out, stream } = sink(true, 110);
    const reporter = createProgressReporter(stream);
    reporter.update(stats({ rate: 1270.1, timeScale: 60 }));
    expect(out[0]).toBe(
      '\rphase 1: 1 min 5 s of 3 min 0 s, 1234 sent, 1270.1/s (21.2 run clock), 2xx 1200 4xx 30 429 4, p99 12.3 ms\x1b[K',
    );
  });

  it('gives the rate per real second, with the run clock beside it when the clock is scaled', () => {
    expect(progressLine(stats({ rate: 1270.1, timeScale: 60 }))).toBe(
      'phase 1 (constant-rate): 1 min 5 s of 3 min 0 s (x60 clock), sent 1234, 1270.1/s real, 21.2/s run clock, ' +
        '2xx 1200 / 4xx 30 / 429 4, p99 12.3 ms',
    );
  });
});

describe('createProgressReporter', () => {
  it('on a terminal, rewrites one line in place, never wider than the terminal, and ends it when done', () => {
    const { out, stream } = sink(true, 60);
    const r = createProgressReporter(stream);
    r.update(stats());
    r.update(stats({ sent: 1300 }));
    r.done();
    expect(out).toHaveLength(3);
    for (const line of out.slice(0, 2)) {
      expect(line.startsWith('\r')).toBe(true);
      expect(line.endsWith('\x1b[K')).toBe(true);
      expect(line.length - '\r\x1b[K'.length).toBeLessThanOrEqual(59);
    }
    expect(out[2]).toBe('\n');
  });

  it('elsewhere, prints a plain line at most every 5 s, and the last numbers when done', () => {
    const { out, stream } = sink(false);
    let now = 0;
    const r = createProgressReporter(stream, { now: () => now });
    r.update(stats({ sent: 1 }));
    now = 4999;
    r.update(stats({ sent: 2 }));
    now = 5000;
    r.update(stats({ sent: 3 }));
    now = 6000;
    r.update(stats({ sent: 4 }));
    r.done();
    r.done();
    expect(out.map((l) => /sent (\d+)/.exec(l)![1])).toEqual(['1', '3', '4']);
    expect(out.every((l) => l.endsWith('\n') && !l.includes('\r'))).toBe(true);
  });
});

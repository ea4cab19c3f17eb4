import { describe, expect, it } from 'vitest';
import type { PlanName } from '../api/plans.js';
import type { ProbeProgress } from '../core/progress.js';
import { createPlanBoard } from './plan-board.js';

function sink(isTTY: boolean, columns?: number) {
  const out: string[] = [];
  return { out, stream: { isTTY, ...(columns === undefined ? {} : { columns }), write: (t: string) => out.push(t) } };
}

/** Four probes on free and pro in turn (as the engine runs them), sending 10 requests each. */
function* events(): Generator<ProbeProgress> {
  const sent: Record<string, number> = { free: 0, pro: 0 };
  const probes = ['list', 'create-get', 'unknown-id', 'retry-after'];
  for (const [i, probe] of probes.entries()) {
    for (const plan of ['free', 'pro'] as PlanName[]) {
      const perPlan = () =>
        Object.entries(sent).map(([p, n]) => ({
          plan: p as PlanName,
          sent: n,
          refused: p === 'free' ? Math.floor(n / 20) : 0,
        }));
      yield { probe, plan, state: 'start', index: i + 1, total: probes.length, perPlan: perPlan() };
      sent[plan]! += 10;
      yield { probe, plan, state: 'done', index: i + 1, total: probes.length, perPlan: perPlan() };
    }
  }
}

describe('createPlanBoard', () => {
  it('elsewhere than a terminal: one plain line per plan when its probes are done, no line per probe', () => {
    const { out, stream } = sink(false);
    let now = 0;
    const board = createPlanBoard(stream, { now: () => now, timer: false });
    for (const e of events()) {
      board.probe(e);
      now += 500;
    }
    board.end();
    // Each plan from its first probe's start to its last probe's end: 13 and 13 events of 0.5 s.
    expect(out).toEqual([
      'free: 4 of 4 probes done in 6.5 s; sent 40, 429 x2\n',
      'pro: 4 of 4 probes done in 6.5 s; sent 40\n',
    ]);
  });

  it('elsewhere: a running plan gets a line at the fixed cadence, and one at the end if it never finished', () => {
    const { out, stream } = sink(false);
    let now = 0;
    const board = createPlanBoard(stream, { now: () => now, timer: false });
    const it = events();
    board.probe(it.next().value!);
    now = 45_000;
    board.tick();
    expect(out).toEqual(['free: probe 1 of 4: list, 45.0 s; sent 0\n']);
    board.log('a log line');
    expect(out.at(-1)).toBe('a log line\n');
    board.end();
    expect(out.at(-1)).toBe('free: probe 1 of 4: list, 45.0 s; sent 0\n');
    expect(out.every((l) => !l.includes('\r') && !l.includes('\x1b'))).toBe(true);
  });

  it("counts what a long probe sent as the keys' standing comes in, not what was sent when it began", () => {
    const { out, stream } = sink(false);
    let now = 0;
    const board = createPlanBoard(stream, { now: () => now, timer: false });
    board.probe({ probe: 'plan-audit', plan: 'free', state: 'start', index: 1, total: 1, perPlan: [] });
    const standing = (sent: number, refused: number) => ({ plan: 'free' as const, sent, refused, heldBack: false });
    board.keys([
      { label: 'free#1', ...standing(290, 1), suspectedBan: false },
      { label: 'free#2', ...standing(11, 0), suspectedBan: false },
    ]);
    now = 60_000;
    board.tick();
    expect(out).toEqual(['free: probe 1 of 1: plan-audit, 1 min 0 s; sent 301, 429 x1\n']);
  });

  it('on a terminal: one line per plan, redrawn in place, never wider than the terminal; log lines go above it', () => {
    const { out, stream } = sink(true, 60);
    let now = 0;
    const board = createPlanBoard(stream, { now: () => now, timer: false });
    const it = events();
    board.probe(it.next().value!);
    expect(out).toEqual(['  free  probe 1 of 4: list, 0.0 s; sent 0\x1b[K\n']);
    board.probe(it.next().value!);
    board.probe(it.next().value!);
    // Up one line (the board so far), then both plans' lines.
    expect(out.at(-2)).toBe('\x1b[1A\r\x1b[J');
    expect(out.at(-1)).toBe(
      '  free  1 of 4 probes done, 0.0 s; sent 10\x1b[K\n  pro   probe 1 of 4: list, 0.0 s; sent 0\x1b[K\n',
    );
    board.log('petload: a notice');
    expect(out.slice(-3)).toEqual([
      '\x1b[2A\r\x1b[J',
      'petload: a notice\n',
      expect.stringMatching(/^ {2}free .*\n {2}pro .*\n$/),
    ]);
    for (const e of it) board.probe(e);
    now = 1000;
    board.end();
    const last = out.at(-1)!.split('\n').filter(Boolean);
    expect(last).toEqual([
      '  free  4 of 4 probes done in 0.0 s; sent 40, 429 x2\x1b[K',
      '  pro   4 of 4 probes done in 0.0 s; sent 40\x1b[K',
    ]);
    for (const chunk of out)
      for (const line of chunk.split('\n'))
        expect(line.replace(/\x1b\[\w*/g, '').replace('\r', '').length).toBeLessThanOrEqual(59);
  });

  it('starts afresh after end (the next scenario of the run)', () => {
    const { out, stream } = sink(false);
    const board = createPlanBoard(stream, { now: () => 0, timer: false });
    for (const e of events()) board.probe(e);
    board.end();
    for (const e of events()) board.probe(e);
    board.end();
    expect(out).toHaveLength(4);
  });
});

describe('createPlanBoard on a narrow terminal', () => {
  it('wraps a row to the terminal width, its figures whole, and redraws as many lines as it drew', () => {
    const { out, stream } = sink(true, 30);
    const board = createPlanBoard(stream, { now: () => 0, timer: false });
    for (const e of events()) board.probe(e);
    board.end();
    for (const chunk of out)
      for (const line of chunk.split('\n'))
        expect(line.replace(/\x1b\[\w*/g, '').replace('\r', '').length).toBeLessThanOrEqual(29);
    const last = out.at(-1)!;
    expect(last).not.toContain('…');
    const text = last.replace(/\x1b\[\w*/g, '').replace(/\s+/g, ' ');
    expect(text).toContain('free 4 of 4 probes done in 0.0 s; sent 40, 429 x2');
    expect(text).toContain('pro 4 of 4 probes done in 0.0 s; sent 40');
    // The next redraw moves up over every line of this one.
    const drawnLines = last.split('\n').length - 1;
    board.probe(events().next().value!);
    expect(out.some((c) => c.includes(`\x1b[${drawnLines}A`))).toBe(true);
  });
});

describe('createPlanBoard: a pause says what it waits for', () => {
  const perPlan = [{ plan: 'free' as const, sent: 61, refused: 1 }];
  const ev = (state: ProbeProgress['state'], probe: string, index: number, waiting?: ProbeProgress['waiting']) => ({
    probe,
    plan: 'free' as const,
    state,
    index,
    total: 3,
    perPlan,
    ...(waiting ? { waiting } : {}),
  });

  it('elsewhere than a terminal: a line at once, inside a probe or before one, and none once the wait is over', () => {
    const { out, stream } = sink(false);
    let now = 0;
    const board = createPlanBoard(stream, { now: () => now, timer: false });
    board.probe(ev('start', 'retry-after-honest', 1));
    now = 1000;
    const honest = { who: 'free#1 (…9a3f)', why: "its 429's Retry-After to end", realMs: 28_250 };
    board.probe(ev('wait', 'retry-after-honest', 1, honest));
    expect(out.at(-1)).toBe(
      "free: probe 1 of 3: retry-after-honest, 1.0 s; sent 61, 429 x1; free#1 (…9a3f) waiting 28.3 s for its 429's Retry-After to end\n",
    );
    now = 30_000;
    board.probe(ev('done', 'retry-after-honest', 1));
    const drain = { who: 'requests without a key', why: "the client address's window to restart", realMs: 30_000 };
    board.probe(ev('wait', 'quota-drain', 1, drain));
    expect(out.at(-1)).toBe(
      "free: 1 of 3 probes done, 30.0 s; sent 61, 429 x1; requests without a key waiting 30.0 s for the client address's window to restart before quota-drain\n",
    );
    now = 61_000;
    board.tick();
    expect(out.at(-1)).toBe('free: 1 of 3 probes done, 1 min 1 s; sent 61, 429 x1\n');
  });
});

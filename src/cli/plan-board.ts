/**
 * What `petload run` shows while probes run: one line per plan (and one for the probes that run without a
 * plan), instead of a line per probe. On a terminal the lines are redrawn in place (about once a second, and
 * at every probe's start and end); elsewhere (CI logs, a pipe) a plan gets one plain line when its probes are
 * done, and a running plan a plain line at a low fixed cadence (default every 30 s), so that a long probe does
 * not look like a hang. Log lines go through the board, so that they are printed above it, never into it.
 */
import type { ProbeProgress } from '../core/progress.js';
import type { KeyStanding } from '../core/run-events.js';
import { formatDuration } from '../outputs/format.js';
import { wrapLine } from '../outputs/console-table.js';
import type { ProgressStream } from './progress.js';

export interface PlanBoard {
  probe(progress: ProbeProgress): void;
  /**
   * Each key's standing (the run's `keys` event, about once a second): the requests sent on each plan's keys as
   * they stand, so that a long probe's line counts what it sent, not what was sent when it began.
   */
  keys(keys: readonly KeyStanding[]): void;
  /** A log line: printed above the board. */
  log(line: string): void;
  /** Redraw (terminal) or print the lines of running plans (elsewhere); called by the board's own timer. */
  tick(): void;
  /** Leaves the board as it is (terminal) or prints what is not printed yet; a later probe starts a new board. */
  end(): void;
}

export interface PlanBoardOptions {
  /** A monotonic real-time clock in ms (default performance.now). */
  now?: () => number;
  /** Real ms between plain lines of running plans (default 30 000). */
  plainEveryMs?: number;
  /** Real ms between redraws on a terminal (default 1000). */
  redrawEveryMs?: number;
  /** Whether the board runs its own timer (default true; tests call tick()). */
  timer?: boolean;
}

interface Row {
  readonly name: string;
  readonly plan: string | null;
  total: number;
  done: number;
  current: string | null;
  startedAt: number;
  finishedAt: number | null;
  reported: boolean;
  /** A wait announced and not over: what for, before which probe, and until when (real ms, the board's clock). */
  waiting: { who: string; why: string; probe: string; until: number } | null;
}

const PLAIN_EVERY_MS = 30_000;
const REDRAW_EVERY_MS = 1000;
/** The row of the probes that run once, without a plan. */
const NO_PLAN = 'all plans';

/** Requests sent on each plan's keys (and refused with 429), as the last probe progress gave them. */
type SentCounts = Map<string, { sent: number; refused: number }>;

function counts(r: Row, sent: SentCounts): string {
  const c = r.plan === null ? undefined : sent.get(r.plan);
  if (!c) return '';
  return `; sent ${c.sent}${c.refused > 0 ? `, 429 x${c.refused}` : ''}`;
}

/** What a row says at time `t`: its running probe and time so far, or how long its probes took. */
function rowText(r: Row, t: number, sent: SentCounts): string {
  if (r.finishedAt !== null)
    return `${r.done} of ${r.total} probe${r.total === 1 ? '' : 's'} done in ${formatDuration(r.finishedAt - r.startedAt)}${counts(r, sent)}`;
  const running =
    r.current === null ? `${r.done} of ${r.total} probes done` : `probe ${r.done + 1} of ${r.total}: ${r.current}`;
  return `${running}, ${formatDuration(t - r.startedAt)}${counts(r, sent)}${waitText(r, t)}`;
}

/**
 * What a row waits for: `; free#2 (…9a3f) waiting 28 s for its 429's Retry-After to end` (before its probe, when it
 * has not begun).
 */
function waitText(r: Row, t: number): string {
  const w = r.waiting;
  if (w === null || w.until <= t) return '';
  const before = r.current === null ? ` before ${w.probe}` : '';
  return `; ${w.who} waiting ${formatDuration(w.until - t)} for ${w.why}${before}`;
}

/** The board's lines, names aligned. */
function boardLines(rows: Iterable<Row>, t: number, sent: SentCounts): string[] {
  const all = [...rows];
  const pad = Math.max(...all.map((r) => r.name.length));
  return all.map((r) => `  ${r.name.padEnd(pad)}  ${rowText(r, t, sent)}`);
}

/** The plan's row (made at its first event), updated with a probe's start, end or wait at time `t`. */
function rowOf(rows: Map<string | null, Row>, p: ProbeProgress, t: number): Row {
  let r = rows.get(p.plan);
  if (!r) {
    r = {
      name: p.plan ?? NO_PLAN,
      plan: p.plan,
      total: p.total,
      done: 0,
      current: null,
      startedAt: t,
      finishedAt: null,
      reported: false,
      waiting: null,
    };
    rows.set(p.plan, r);
  }
  r.total = p.total;
  if (p.state === 'wait') {
    r.waiting = {
      who: p.waiting?.who ?? p.probe,
      why: p.waiting?.why ?? 'the target',
      probe: p.probe,
      until: t + (p.waiting?.realMs ?? 0),
    };
    return r;
  }
  r.waiting = null;
  if (p.state === 'start') {
    r.current = p.probe;
  } else {
    r.current = null;
    r.done = Math.max(r.done, p.index);
    if (r.done >= r.total) r.finishedAt = t;
  }
  return r;
}

export function createPlanBoard(stream: ProgressStream, options: PlanBoardOptions = {}): PlanBoard {
  const now = options.now ?? (() => performance.now());
  const tty = stream.isTTY === true;
  const rows = new Map<string | null, Row>();
  const sent: SentCounts = new Map();
  let drawn = 0;
  let timer: NodeJS.Timeout | undefined;

  const width = () => Math.max(20, (stream.columns || 80) - 1);
  const fitWidth = (line: string) => (line.length > width() ? `${line.slice(0, width() - 1)}…` : line);
  const text = (r: Row, t: number) => rowText(r, t, sent);
  const lines = (t: number) => boardLines(rows.values(), t, sent);

  function clear(): void {
    if (drawn > 0) stream.write(`\x1b[${drawn}A\r\x1b[J`);
    drawn = 0;
  }

  function draw(): void {
    // Rows wrap to the terminal (words to the next line, figures whole); every line drawn is counted, to redraw.
    const all = lines(now()).flatMap((l) => wrapLine('', l, width(), '      '));
    clear();
    stream.write(all.map((l) => `${fitWidth(l)}\x1b[K\n`).join(''));
    drawn = all.length;
  }

  function plain(r: Row): void {
    stream.write(`${r.name}: ${text(r, now())}\n`);
  }

  function start(): void {
    if (timer !== undefined || options.timer === false) return;
    timer = setInterval(
      () => board.tick(),
      tty ? (options.redrawEveryMs ?? REDRAW_EVERY_MS) : (options.plainEveryMs ?? PLAIN_EVERY_MS),
    );
    timer.unref();
  }

  const board: PlanBoard = {
    probe(p) {
      const t = now();
      for (const s of p.perPlan) sent.set(s.plan, { sent: s.sent, refused: s.refused });
      const r = rowOf(rows, p, t);
      if (p.state === 'wait') {
        start();
        // A pause says what it waits for at once, on a terminal and in a log alike.
        if (tty) draw();
        else plain(r);
        return;
      }
      start();
      if (tty) draw();
      else if (r.finishedAt !== null && !r.reported) {
        r.reported = true;
        plain(r);
      }
    },
    keys(keys) {
      if (rows.size === 0) return;
      sent.clear();
      for (const k of keys) {
        const c = sent.get(k.plan) ?? { sent: 0, refused: 0 };
        sent.set(k.plan, { sent: c.sent + k.sent, refused: c.refused + k.refused });
      }
    },
    log(line) {
      if (tty && drawn > 0) {
        clear();
        stream.write(`${line}\n`);
        draw();
      } else {
        stream.write(`${line}\n`);
      }
    },
    tick() {
      if (rows.size === 0) return;
      if (tty) draw();
      else for (const r of rows.values()) if (r.finishedAt === null) plain(r);
    },
    end() {
      clearInterval(timer);
      timer = undefined;
      if (rows.size > 0) {
        if (tty) draw();
        else for (const r of rows.values()) if (!r.reported && r.finishedAt === null) plain(r);
      }
      rows.clear();
      sent.clear();
      drawn = 0;
    },
  };
  return board;
}

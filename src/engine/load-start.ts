/**
 * Load and probes do not starve each other (docs/schedule.md, "Probes and load"). A probe that spends a key's
 * window on purpose (enforce, burst, key-isolation) leaves a 429 that holds the key until the window ends; a load
 * phase started on it at once would send nothing until then. So the load section starts when no key it sends on
 * is held by such a 429 (the schedule plans that wait: Schedule.held, Estimate.loadAtMs), and a phase that still
 * sends far below its plan says so, with the cause the key states knew (lane.ts, `heldBackBy`).
 */
import { heldUntil, type KeyStates } from '../backoff/key-state.js';
import type { ApiKey } from '../core/api-key.js';
import type { Clock } from '../core/clock.js';
import type { LoadOutcome } from '../executors/run-load.js';
import type { Schedule } from './schedule.js';

/** A key the load would wait for: who holds it, until when (local run-clock time). */
export interface LoadHold {
  readonly label: string;
  readonly by: string;
  readonly until: number;
}

/** The keys of the load a probe's 429 still holds at `now`, each until its wait is over (a window at most). */
export function loadHolds(keyStates: KeyStates, keys: readonly ApiKey[], now: number, schedule: Schedule): LoadHold[] {
  const holds: LoadHold[] = [];
  for (const key of keys) {
    const s = keyStates.get(key);
    if (s.suspectedBan || s.blockedUntil <= now) continue;
    const planned = schedule.held.find((h) => h.label === key.label);
    const by = s.blockedBy ?? (planned ? `probe ${planned.probe}` : 'a probe');
    holds.push({ label: key.label, by, until: heldUntil(s, now) });
  }
  return holds;
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`;

/**
 * Wait, before the load section, until no key of the load is held by a probe's 429; `say` gets the line that
 * says what for (for the log and the report's notes) as the wait begins. Nothing is said when no key is held.
 */
export async function awaitLoadWindows(
  clock: Clock,
  holds: readonly LoadHold[],
  signal: AbortSignal,
  say: (line: string) => void,
): Promise<void> {
  if (holds.length === 0) return;
  const now = clock.now();
  const until = Math.max(...holds.map((h) => h.until));
  const who = holds.map((h) => `${h.label} by ${h.by}'s 429`).join(', ');
  const real = clock.scale === 1 ? '' : ` (${seconds((until - now) / clock.scale)} of real time)`;
  say(
    `load: starts ${seconds(until - now)} after the probes${real}, once the windows their 429s spent have ended (${who}): no load phase runs on a key a probe holds`,
  );
  await clock.sleep(until - now, signal);
}

/** Below this share of its planned arrivals, a phase's plan sent "far below its rate" and says why. */
export const SHORTFALL_SHARE = 0.8;

/**
 * One line per phase and plan that sent nothing or far below its plan (first tries under 80 % of the planned
 * arrivals): what it sent, and why the rest was not (held back, by cause and until when; dropped; the run stopped).
 */
export function shortfallLines(outcome: LoadOutcome): string[] {
  const lines: string[] = [];
  for (const ph of outcome.phases) {
    for (const p of ph.plans) {
      const first = p.sent - p.retries;
      if (p.planned === 0 || first >= SHORTFALL_SHARE * p.planned) continue;
      const why = [
        ...p.heldBackBy.map(
          (h) =>
            `${h.count} held back: ${h.cause}${h.until > ph.startedAt ? ` until ${seconds(h.until - ph.startedAt)} into the phase` : ''}`,
        ),
        ...(p.dropped > 0 ? [`${p.dropped} dropped: maxInFlight requests were in flight`] : []),
        ...(outcome.stopped === 'signal' ? ['the run was stopped'] : []),
        ...(outcome.stopped === 'max-requests' ? ['maxRequests was reached'] : []),
      ];
      lines.push(
        `load ${ph.label} [${p.plan}] sent ${first} of ~${p.planned} requests${why.length > 0 ? `: ${why.join('; ')}` : ''}`,
      );
    }
  }
  return lines;
}

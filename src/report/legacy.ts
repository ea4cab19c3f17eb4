/**
 * The legacy path: what reports of older versions held only in prose, read back in this one place. A report of this
 * version carries the same facts as data (`keys[].limits`, a check's typed info: src/report/check-info.ts), and no
 * reader depends on these sentences; only reports written before those fields existed come here.
 */
import type { PlanName } from '../api/plans.js';
import type { KeyLimits, Report } from './schema.js';

const FIGURES_NOTE = 'Figures judged: ';

/**
 * A key's figures from the runs' `Figures judged: <label> N/min, M/day; ...` notes (a merged report has one per run
 * merged), null when no note names the key.
 */
export function legacyKeyLimits(
  report: Pick<Report, 'notes'>,
  key: { label: string; plan: PlanName },
): KeyLimits | null {
  for (const note of report.notes) {
    if (!note.startsWith(FIGURES_NOTE)) continue;
    const at = note.indexOf(`${key.label} `);
    const m = at === -1 ? null : /^(\d+)\/min, (\d+)\/day/.exec(note.slice(at + key.label.length + 1));
    if (m !== null) return { perMinute: Number(m[1]), perDay: Number(m[2]) };
  }
  return null;
}

/**
 * The Limit the enforce probe counted against, from its `limit` fact's words ("counted against the Limit the target
 * announces (N), ..."): reports written before the fact `announcedLimit`.
 */
export function legacyAnnouncedLimit(words: string | undefined): number | null {
  const m = words === undefined ? null : /\((\d+)\)/.exec(words);
  return m === null ? null : Number(m[1]);
}

/**
 * The reproductions of a report (report.json alone): for each failed check and plan, a shell script under repro/
 * when a replay can show the defect, else why not; in both cases the command that re-runs the probe that judged it.
 * summary.md, report.html and the console show them under the failure (docs/reproductions.md).
 */
import type { Report } from '../../report/schema.js';
import { type Failure, keyOfFailure } from './failure.js';
import { isCheckId, reproductionOf } from './recipes.js';
import { type Script, writeScript } from './sh.js';

export const REPRO_FOLDER = 'repro';

export interface ReproEntry {
  readonly check: string;
  readonly plan: string | null;
  /** The script's path in the report folder (`repro/<check>.<plan>.sh`) and its text; absent: no replay. */
  readonly file?: string;
  readonly script?: Script;
  /** Why a replay cannot show the defect. */
  readonly why?: string;
  /** The command that runs again only the probe that judged the check, on the plan, against the target. */
  readonly rerun: string;
}

/** The serve flags of the embedded server's settings (report.json's `target.variant`). */
const VARIANT_FLAGS: Readonly<Record<string, string>> = {
  windowReport: '--window-report',
  countErrors: '--count-errors',
  banThreshold: '--ban-threshold',
  banSeconds: '--ban-seconds',
};

function serveCommand(r: Report): string {
  const t = r.target;
  const faults = t.faults.map((x) => ` --fault ${x}`).join('');
  const variant = Object.entries(t.variant ?? {})
    .filter(([k]) => VARIANT_FLAGS[k] !== undefined)
    .map(([k, v]) => ` ${VARIANT_FLAGS[k]} ${v}`)
    .join('');
  return `petload serve --time-scale ${t.timeScale}${faults}${variant} --keys-file KEYS.json`;
}

function rerunCommand(r: Report, f: Failure): string {
  const probe = f.outcome.evidence.map((e) => /^probe:(.+)$/.exec(e.tag ?? '')?.[1]).find((p) => p !== undefined);
  // A threshold is judged by the whole scenario's figures: no focus.
  const what = probe !== undefined ? ` --probe ${probe}` : isCheckId(f.check.id) ? ` --check ${f.check.id}` : '';
  const plan = f.outcome.plan !== null ? ` --plan ${f.outcome.plan}` : '';
  const t = r.target;
  const where = t.embedded
    ? ` --time-scale ${t.timeScale}${t.faults.map((x) => ` --fault ${x}`).join('')}`
    : ` --target ${t.url}`;
  return `petload run ${r.scenario.file ?? r.scenario.name}${what}${plan}${where}`;
}

export const reproFile = (check: string, plan: string | null): string => `${check}.${plan ?? 'no-plan'}.sh`;

function entryOf(report: Report, f: Failure): ReproEntry {
  const base = { check: f.check.id, plan: f.outcome.plan, rerun: rerunCommand(report, f) };
  const repro = reproductionOf(f);
  if (repro.kind === 'no-replay') return { ...base, why: repro.why };
  const name = reproFile(f.check.id, f.outcome.plan);
  const first = f.outcome.evidence.find((e) => e.key === keyOfFailure(f)) ?? f.outcome.evidence[0];
  const script = writeScript(
    {
      file: name,
      check: f.check.id,
      title: f.check.title,
      severity: f.check.severity,
      plan: f.outcome.plan,
      defect: f.outcome.evidence[0]?.message ?? 'see the report',
      seen: `${first?.headers?.date ?? 'at a time not recorded'} (the target's clock) at ${report.target.url}, in the run of ${report.startedAt}`,
      target: report.target.url,
      timeScale: report.target.embedded ? report.target.timeScale : 1,
      ...(report.target.embedded ? { serve: serveCommand(report) } : {}),
    },
    repro.steps,
  );
  return { ...base, file: `${REPRO_FOLDER}/${name}`, script };
}

/**
 * The entry, or, should a recipe throw on a report it did not foresee (a report edited by hand), the reason in its
 * place: a reproduction never costs the report its other formats.
 */
function safeEntryOf(report: Report, f: Failure): ReproEntry {
  try {
    return entryOf(report, f);
  } catch (e) {
    const why = `petload could not write its replay (${e instanceof Error ? e.message : String(e)})`;
    return {
      check: f.check.id,
      plan: f.outcome.plan,
      why,
      rerun: `petload run ${report.scenario.name} --check ${f.check.id}`,
    };
  }
}

const cache = new WeakMap<Report, readonly ReproEntry[]>();

/** Every failed check's reproduction, per plan, in the report's order. */
export function reproductions(report: Report): readonly ReproEntry[] {
  const known = cache.get(report);
  if (known !== undefined) return known;
  const out: ReproEntry[] = [];
  for (const check of report.checks) {
    if (check.status !== 'fail') continue;
    for (const outcome of check.byPlan) {
      if (outcome.status === 'fail') out.push(safeEntryOf(report, { report, check, outcome }));
    }
  }
  cache.set(report, out);
  return out;
}

/** The reproductions of one failed check, one per plan it failed on. */
export function reproductionsOf(report: Report, check: string): readonly ReproEntry[] {
  return reproductions(report).filter((e) => e.check === check);
}

/** The files of the repro/ folder: name -> script (none when no failure can be replayed). */
export function renderRepro(report: Report): Record<string, string> {
  const files: Record<string, string> = {};
  for (const e of reproductions(report)) {
    if (e.script !== undefined) files[reproFile(e.check, e.plan)] = e.script.text;
  }
  return files;
}

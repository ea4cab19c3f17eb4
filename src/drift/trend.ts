/**
 * `petload trend`: every report.json given, grouped by scenario and target, each group's runs in start order,
 * with what the trend page draws of them: the verdicts, each check's status per plan, p50 and p99 per operation,
 * the Limit values each plan was sent. A file that cannot be read, is no petload report, or was written by a
 * newer petload is listed with the reason and skipped: never fatal.
 */
import type { Dirent } from 'node:fs';
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { PlanName } from '../api/plans.js';
import { type MeasuredTraffic, measuredTraffic } from '../metrics/traffic.js';
import { parseReport } from '../outputs/read.js';
import { type CheckResult, REPORT_SCHEMA_VERSION, type Report } from '../report/schema.js';
import type { Severity } from '../report/severity.js';
import { contractSide } from './contract.js';
import { groupKey, runRef, targetIdentity } from './identity.js';
import type { RunRef, SideStatus } from './schema.js';

/** A file found for the trend: its text, or null with why it could not be read. */
export interface ReportFile {
  path: string;
  text: string | null;
  error?: string;
}

export interface TrendRun {
  path: string;
  startedAt: string;
  verdict: Report['verdict'];
  exitCode: number;
  faults: string[];
  toolVersion: string;
  requests: number;
  shard: RunRef['shard'];
}

/** One check for one plan: its status in each run of the group (`absent`: not judged there). */
export interface TrendCheck {
  id: string;
  plan: PlanName | null;
  severity: Severity;
  title: string;
  statuses: SideStatus[];
}

/** One operation's latency in each run (ms; null where the run had no such operation). */
export interface TrendOperation {
  operation: string;
  p50: (number | null)[];
  p99: (number | null)[];
  count: (number | null)[];
}

/** The Limit values a plan's keys were sent, in each run (empty where none, or the plan was not judged). */
export interface TrendLimits {
  plan: PlanName;
  seen: number[][];
}

/** Requests a plan's limiter accepted within a minute from a fresh start, in each run (null where not measured). */
export interface TrendAdmission {
  plan: PlanName;
  sold: (number | null)[];
  accepted: (number | null)[];
}

export interface TrendGroup {
  key: string;
  scenario: string;
  target: string;
  runs: TrendRun[];
  checks: TrendCheck[];
  operations: TrendOperation[];
  /** Whose traffic `operations` is (the newest run's class), and how many runs of another class were left out. */
  latencyTraffic: { measured: MeasuredTraffic; leftOut: number };
  limits: TrendLimits[];
  admission: TrendAdmission[];
}

export interface TrendPage {
  groups: TrendGroup[];
  /** Files left out, with why. */
  skipped: { path: string; reason: string }[];
}

const isObject = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);

/** A report, or why the file is skipped. */
export function readTrendFile(f: ReportFile): { report: Report } | { reason: string } {
  if (f.text === null) return { reason: `cannot be read (${f.error ?? 'error'})` };
  let doc: unknown;
  try {
    doc = JSON.parse(f.text);
  } catch (e) {
    return { reason: `not JSON (${(e as Error).message})` };
  }
  if (!isObject(doc) || !isObject(doc.tool) || doc.tool.name !== 'petload')
    return { reason: 'not a petload report.json (no "tool": {"name": "petload"})' };
  const version = doc.schemaVersion;
  if (typeof version === 'number' && version > REPORT_SCHEMA_VERSION)
    return {
      reason: `written by a newer petload (${String(doc.tool.version ?? '?')}, report schema ${version}; this one reads schema ${REPORT_SCHEMA_VERSION})`,
    };
  try {
    return { report: parseReport(doc, f.path) };
  } catch (e) {
    const message = (e as Error).message;
    const own = message.startsWith(`${f.path}: `) ? message.slice(f.path.length + 2) : message;
    return { reason: own.split('\n').slice(0, 4).join(' ').replace(/\s+/g, ' ') };
  }
}

function trendRun(path: string, r: Report): TrendRun {
  const ref = runRef(r);
  return {
    path,
    startedAt: r.startedAt,
    verdict: r.verdict,
    exitCode: r.exitCode,
    faults: ref.faults,
    toolVersion: ref.toolVersion,
    requests: ref.requests,
    shard: ref.shard,
  };
}

type Outcome = CheckResult['byPlan'][number];

function outcomes(c: CheckResult): Outcome[] {
  return c.byPlan.length > 0
    ? c.byPlan
    : [{ plan: null, status: c.status, counts: c.counts, evidence: [], reasons: [], info: {} }];
}

function trendChecks(reports: readonly Report[]): TrendCheck[] {
  const rows = new Map<string, TrendCheck>();
  reports.forEach((r, i) => {
    for (const c of r.checks)
      for (const o of outcomes(c)) {
        const key = `${c.id}\u0000${o.plan ?? ''}`;
        let row = rows.get(key);
        if (row === undefined) {
          row = { id: c.id, plan: o.plan, severity: c.severity, title: c.title, statuses: reports.map(() => 'absent') };
          rows.set(key, row);
        }
        row.statuses[i] = o.status;
      }
  });
  return [...rows.values()];
}

/**
 * Whose traffic the group's latency is: the newest run's class. Runs of another class (a report of an older
 * version, whose latency mixes the probes' with the load's) are left out of the latency chart and counted.
 */
function trendTraffic(reports: readonly Report[]): TrendGroup['latencyTraffic'] {
  const measured = measuredTraffic(reports[reports.length - 1]!);
  return { measured, leftOut: reports.filter((r) => measuredTraffic(r) !== measured).length };
}

function trendOperations(reports: readonly Report[]): TrendOperation[] {
  const { measured } = trendTraffic(reports);
  const names = [...new Set(reports.flatMap((r) => r.operations.map((o) => o.operation)))];
  return names.map((operation) => {
    const ops = reports.map((r) =>
      measuredTraffic(r) === measured ? r.operations.find((o) => o.operation === operation) : undefined,
    );
    return {
      operation,
      p50: ops.map((o) => (o ? o.latency.p50 : null)),
      p99: ops.map((o) => (o ? o.latency.p99 : null)),
      count: ops.map((o) => (o ? o.count : null)),
    };
  });
}

function trendLimits(reports: readonly Report[]): TrendLimits[] {
  const plans = (['free', 'pro', 'business', 'enterprise'] as const).filter((p) =>
    reports.some((r) => r.plans.includes(p)),
  );
  return plans.map((plan) => ({ plan, seen: reports.map((r) => contractSide(r, plan)?.limitsSeen ?? []) }));
}

function trendAdmission(reports: readonly Report[]): TrendAdmission[] {
  const plans = (['free', 'pro', 'business', 'enterprise'] as const).filter((p) =>
    reports.some((r) => r.admission?.some((a) => a.plan === p)),
  );
  const minute = (r: Report, plan: PlanName) => r.admission?.find((a) => a.plan === plan && a.window === 'minute');
  return plans.map((plan) => ({
    plan,
    sold: reports.map((r) => minute(r, plan)?.sold ?? null),
    accepted: reports.map((r) => minute(r, plan)?.accepted ?? null),
  }));
}

const startOf = (r: Report): number => {
  const t = Date.parse(r.startedAt);
  return Number.isNaN(t) ? 0 : t;
};

export function trend(reportFiles: readonly ReportFile[]): TrendPage {
  const skipped: TrendPage['skipped'] = [];
  const byKey = new Map<string, { path: string; report: Report }[]>();
  const seen = new Set<string>();
  for (const f of reportFiles) {
    if (seen.has(f.path)) continue;
    seen.add(f.path);
    const read = readTrendFile(f);
    if ('reason' in read) {
      skipped.push({ path: f.path, reason: read.reason });
      continue;
    }
    const key = groupKey(read.report);
    byKey.set(key, [...(byKey.get(key) ?? []), { path: f.path, report: read.report }]);
  }
  const groups = [...byKey.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([key, list]): TrendGroup => {
      const runs = [...list].sort((a, b) => startOf(a.report) - startOf(b.report) || a.path.localeCompare(b.path));
      const reports = runs.map((x) => x.report);
      return {
        key,
        scenario: reports[0]!.scenario.name,
        target: targetIdentity(reports[0]!),
        runs: runs.map((x) => trendRun(x.path, x.report)),
        checks: trendChecks(reports),
        operations: trendOperations(reports),
        latencyTraffic: trendTraffic(reports),
        limits: trendLimits(reports),
        admission: trendAdmission(reports),
      };
    });
  return { groups, skipped };
}

/** Folders never walked into: dependencies and version control. */
const SKIP_DIRS = new Set(['node_modules', '.git']);

async function walk(dir: string, out: ReportFile[]): Promise<void> {
  let entries: Dirent[];
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch (e) {
    out.push({ path: dir, text: null, error: (e as NodeJS.ErrnoException).code ?? 'error' });
    return;
  }
  entries.sort((a, b) => a.name.localeCompare(b.name));
  for (const e of entries) {
    const p = join(dir, e.name);
    if (e.isDirectory() && !SKIP_DIRS.has(e.name)) await walk(p, out);
    else if (e.isFile() && e.name === 'report.json') out.push(await readOne(p));
  }
}

async function readOne(path: string): Promise<ReportFile> {
  try {
    return { path, text: await readFile(path, 'utf8') };
  } catch (e) {
    return { path, text: null, error: (e as NodeJS.ErrnoException).code ?? 'error' };
  }
}

/**
 * Every report.json under the given folders (a file given directly is taken whatever its name), in path order.
 * A folder or file that cannot be read is returned with `text: null` and the error code, for the page to list.
 */
export async function findReports(dirs: readonly string[]): Promise<ReportFile[]> {
  const out: ReportFile[] = [];
  for (const d of dirs) {
    let isDir: boolean;
    try {
      isDir = (await stat(d)).isDirectory();
    } catch (e) {
      out.push({ path: d, text: null, error: (e as NodeJS.ErrnoException).code ?? 'error' });
      continue;
    }
    if (isDir) await walk(d, out);
    else out.push(await readOne(d));
  }
  return out;
}

/**
 * What `petload compare` and `petload run --baseline` share: reading a report from a file or a report directory,
 * finding a scenario's baseline among several, comparing, and writing compare.json, compare.md and compare.html
 * (atomically) with compare.md appended to a GitHub job summary.
 */
import { existsSync, statSync } from 'node:fs';
import { mkdir, readdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { PetloadError } from '../core/errors.js';
import { compareReports } from '../drift/compare.js';
import { compareHtml } from '../drift/html.js';
import { compareMarkdown } from '../drift/markdown.js';
import type { CompareOptionsInput, Comparison } from '../drift/schema.js';
import { readReportFile } from '../outputs/read.js';
import { writeFileAtomic } from '../outputs/write.js';
import type { Report } from '../report/schema.js';
import { appendGithubSummary, githubSummaryFile } from './github-summary.js';

/** The report.json a path names: the file itself, or the report.json in the directory. */
export function reportPathOf(path: string): string {
  if (!existsSync(path)) throw new PetloadError('E_USAGE', `${path}: no such file or directory`);
  return statSync(path).isDirectory() ? join(path, 'report.json') : path;
}

export const readReportAt = (path: string): Report => readReportFile(reportPathOf(path));

/** Every report.json under `dir` (a few levels down), for a baseline folder that holds several scenarios' reports. */
async function reportsUnder(dir: string, depth = 3): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isFile() && e.name === 'report.json') out.push(p);
    else if (e.isDirectory() && depth > 0) out.push(...(await reportsUnder(p, depth - 1)));
  }
  return out;
}

/**
 * The baseline of scenario `name` at `path`: the report.json it names, or, for a directory, the report of that
 * scenario found under it (a nightly's whole report folder). Null when the folder holds none of it.
 */
export async function baselineFor(path: string, name: string): Promise<Report | null> {
  if (!existsSync(path)) throw new PetloadError('E_USAGE', `--baseline: ${path}: no such file or directory`);
  if (!statSync(path).isDirectory()) return readReportFile(path);
  for (const file of (await reportsUnder(path)).sort()) {
    const report = readReportFile(file);
    if (report.scenario.name === name) return report;
  }
  return null;
}

const OUT_HINT = 'Give a directory petload can create or write to (compare: --out DIR).';

export interface WrittenComparison {
  comparison: Comparison;
  files: { dir: string; json: string; markdown: string; html: string };
  /** A one-line problem appending to the job summary, if any. */
  summaryProblem: string | null;
}

/**
 * Compare, write the three files into `out` (default: the current report's directory; created with its parents
 * when missing, as run, report, merge and trend create theirs) and append the summary.
 */
export async function compareAndWrite(
  baseline: Report,
  current: Report,
  options: CompareOptionsInput,
  out: string | undefined,
  githubSummary: boolean | undefined,
  currentDir?: string,
): Promise<WrittenComparison> {
  const comparison = compareReports(baseline, current, options);
  const dir = out ?? currentDir ?? '.';
  const files = {
    dir,
    json: join(dir, 'compare.json'),
    markdown: join(dir, 'compare.md'),
    html: join(dir, 'compare.html'),
  };
  try {
    await mkdir(dir, { recursive: true });
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code ?? String(e);
    throw new PetloadError('E_USAGE', `cannot create ${dir} (${code})`, { cause: e, hint: OUT_HINT });
  }
  await writeFileAtomic(files.json, `${JSON.stringify(comparison, null, 2)}\n`, OUT_HINT);
  await writeFileAtomic(files.markdown, compareMarkdown(comparison), OUT_HINT);
  await writeFileAtomic(files.html, compareHtml(comparison), OUT_HINT);
  const summary = githubSummaryFile(githubSummary, process.env);
  const summaryProblem = summary === null ? null : await appendGithubSummary(summary, files.markdown);
  return { comparison, files, summaryProblem };
}

export const dirOfReport = (path: string): string => dirname(reportPathOf(path));

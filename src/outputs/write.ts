/**
 * Writes every report format into a directory. Each file is written atomically (a temporary file in the same
 * directory, flushed, then renamed over the target), so a reader never sees half a report, even when the run
 * is interrupted while writing. Secrets are redacted twice: in the report's free text before rendering (so
 * that escaping cannot hide a key from the redactor; structured values are left alone, see src/report/redact.ts),
 * then whole keys in every rendered text, as a last line of defence that cannot break a file's structure.
 */
import { mkdir, open, readdir, rename, rm, rmdir } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { Report } from '../report/schema.js';
import { PetloadError } from '../core/errors.js';
import { redactReport, redactStrings } from '../report/redact.js';
import {
  FOLDER_OUTPUT_NAMES,
  FOLDER_OUTPUTS,
  type FolderOutputName,
  OUTPUT_NAMES,
  OUTPUTS,
  type OutputName,
} from './registry.js';

export interface WriteOptions {
  /** Hides secrets in a text (see createRedactor); its `whole` (whole keys only) makes the last pass. */
  redact?: ((s: string) => string) & { whole?: (s: string) => string };
}

/** Each file output's path; a folder output's path when it wrote any file. */
export type WrittenReports = Record<OutputName, string> & Partial<Record<FolderOutputName, string>>;

type AnyOutputName = OutputName | FolderOutputName;

const OUT_DIR_HINT = 'Give a writable directory (--report-dir or --out).';

function ioError(what: string, e: unknown, hint = OUT_DIR_HINT): PetloadError {
  const code = (e as NodeJS.ErrnoException).code ?? (e instanceof Error ? e.message : String(e));
  return new PetloadError('E_USAGE', `cannot ${what} (${code})`, { cause: e, hint });
}

/** Temporary files written by this process so far: with the pid, a name no other write uses. */
let temporaries = 0;

/**
 * Write `text` to `path` so that `path` holds either its old content or all of `text`, never a part. `hint` is
 * the error's hint when it cannot (default: names --report-dir and --out; a command with only one gives its own).
 */
export async function writeFileAtomic(path: string, text: string, hint = OUT_DIR_HINT): Promise<void> {
  // Unique by pid, time and count, and opened with 'wx' (never over another file); not random: the first random
  // bytes of a process cost 5 ms of `petload report`'s start.
  const tmp = join(dirname(path), `.${basename(path)}.${process.pid}.${Date.now().toString(36)}.${++temporaries}.tmp`);
  try {
    const fh = await open(tmp, 'wx', 0o644);
    try {
      await fh.writeFile(text, 'utf8');
      await fh.datasync();
    } finally {
      await fh.close();
    }
    await rename(tmp, path);
  } catch (e) {
    await rm(tmp, { force: true });
    throw ioError(`write ${path}`, e, hint);
  }
}

/**
 * The last pass over a rendered file: whole keys only. report.json is changed through its parsed strings, so
 * that a key spelled with JSON escapes is found too and the text stays valid JSON; when no string holds a key,
 * the text is returned as it was.
 */
export function lastPass(name: OutputName, text: string, whole: (s: string) => string): string {
  if (name !== 'json') return whole(text);
  const doc: unknown = JSON.parse(text);
  let changed = false;
  const clean = redactStrings(doc, (s) => {
    const r = whole(s);
    if (r !== s) changed = true;
    return r;
  });
  return changed ? `${JSON.stringify(clean, null, 2)}\n` : text;
}

export interface SettledReports {
  written: Partial<WrittenReports>;
  /** The formats that could not be rendered, with why. */
  failed: { name: AnyOutputName; error: unknown }[];
}

export interface RenderedReports {
  texts: Partial<Record<OutputName, string>>;
  /** The folder outputs' files: name -> text. */
  folders: Partial<Record<FolderOutputName, Readonly<Record<string, string>>>>;
  /** The formats that could not be rendered, with why. */
  failed: { name: AnyOutputName; error: unknown }[];
}

/**
 * Render formats in memory, each on its own, with the report's free text redacted and the last pass over each text
 * (folder outputs: `folders`, by default all of them).
 */
export function renderReports(
  report: Report,
  opts: WriteOptions = {},
  names: readonly OutputName[] = OUTPUT_NAMES,
  folders: readonly FolderOutputName[] = FOLDER_OUTPUT_NAMES,
): RenderedReports {
  const redact = opts.redact;
  const clean = redact ? redactReport(report, redact) : report;
  const whole = redact ? (redact.whole ?? redact) : null;
  const res: RenderedReports = { texts: {}, folders: {}, failed: [] };
  for (const name of names) {
    try {
      const text = OUTPUTS[name].render(clean);
      res.texts[name] = whole ? lastPass(name, text, whole) : text;
    } catch (e) {
      res.failed.push({ name, error: e });
    }
  }
  for (const name of folders) {
    try {
      const files = Object.entries(FOLDER_OUTPUTS[name].render(clean));
      res.folders[name] = Object.fromEntries(files.map(([f, text]) => [f, whole ? whole(text) : text]));
    } catch (e) {
      res.failed.push({ name, error: e });
    }
  }
  return res;
}

/**
 * Write a folder output's files into `dir`, and remove the files an earlier rendering left there that this one
 * does not write (a report rendered again says what it says now; its scripts only). Its path, or null when it has no file.
 */
async function writeFolder(dir: string, files: Readonly<Record<string, string>>): Promise<string | null> {
  const names = Object.keys(files);
  const old = await readdir(dir).catch(() => [] as string[]);
  const stale = old.filter((f) => f.endsWith('.sh') && !names.includes(f));
  await Promise.all(stale.map((f) => rm(join(dir, f), { force: true })));
  if (names.length === 0) {
    // Left alone when it holds anything else.
    await rmdir(dir).catch(() => undefined);
    return null;
  }
  try {
    await mkdir(dir, { recursive: true });
  } catch (e) {
    throw ioError(`create the directory ${dir}`, e);
  }
  await Promise.all(names.map((f) => writeFileAtomic(join(dir, f), files[f]!)));
  return dir;
}

/**
 * Render and write every format into `dir` (created if needed), each on its own: a format that fails to render
 * does not stop the others. An error writing a file (the directory) is thrown at once.
 */
export async function writeReportsSettled(
  report: Report,
  dir: string,
  opts: WriteOptions = {},
  names: readonly OutputName[] = OUTPUT_NAMES,
): Promise<SettledReports> {
  const rendered = renderReports(report, opts, names);
  try {
    await mkdir(dir, { recursive: true });
  } catch (e) {
    throw ioError(`create the report directory ${dir}`, e);
  }
  const res: SettledReports = { written: {}, failed: rendered.failed };
  const paths = names
    .filter((name) => rendered.texts[name] !== undefined)
    .map((name) => [name, join(dir, OUTPUTS[name].file)] as const);
  // The files at once (each write waits for its disk sync); the first error, once every write has settled.
  const writes = await Promise.allSettled(paths.map(([name, path]) => writeFileAtomic(path, rendered.texts[name]!)));
  const failed = writes.find((w) => w.status === 'rejected');
  if (failed) throw failed.reason;
  for (const [name, path] of paths) res.written[name] = path;
  for (const [name, files] of Object.entries(rendered.folders) as [FolderOutputName, Record<string, string>][]) {
    const path = await writeFolder(join(dir, FOLDER_OUTPUTS[name].folder), files);
    if (path !== null) res.written[name] = path;
  }
  return res;
}

/**
 * Render and write report.json, junit.xml, summary.md, report.html and repro/ into `dir` (created if needed).
 * A format that fails to render does not stop the others from being written; its error is thrown after.
 */
export async function writeReports(report: Report, dir: string, opts: WriteOptions = {}): Promise<WrittenReports> {
  const res = await writeReportsSettled(report, dir, opts);
  if (res.failed.length > 0) throw res.failed[0]!.error;
  return res.written as WrittenReports;
}

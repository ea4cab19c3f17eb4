/**
 * Writes every report format into a directory. Each file is written atomically (a temporary file in the same
 * directory, flushed, then renamed over the target), so a reader never sees half a report, even when the run
 * is interrupted while writing. Secrets are redacted twice: in every string of the report before rendering
 * (so that escaping cannot hide a key from the redactor) and in every rendered text.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, open, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { Report } from '../engine/report-schema.js';
import { PetloadError } from '../errors.js';
import { OUTPUT_NAMES, OUTPUTS, type OutputName } from './registry.js';

export interface WriteOptions {
  /** Replaces every secret in a text (see createRedactor). */
  redact?: (s: string) => string;
}

export type WrittenReports = Record<OutputName, string>;

const OUT_DIR_HINT = 'Give a writable directory (--report-dir or --out).';

function ioError(what: string, e: unknown): PetloadError {
  const code = (e as NodeJS.ErrnoException).code ?? (e instanceof Error ? e.message : String(e));
  return new PetloadError('E_USAGE', `cannot ${what} (${code})`, { cause: e, hint: OUT_DIR_HINT });
}

/** Write `text` to `path` so that `path` holds either its old content or all of `text`, never a part. */
export async function writeFileAtomic(path: string, text: string): Promise<void> {
  const tmp = join(dirname(path), `.${basename(path)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
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
    throw ioError(`write ${path}`, e);
  }
}

/** Every string of a JSON-like value (map keys included) through `redact`. */
export function redactDeep<T>(value: T, redact: (s: string) => string): T {
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') return redact(v);
    if (Array.isArray(v)) return v.map(walk);
    if (v !== null && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [redact(k), walk(x)]));
    return v;
  };
  return walk(value) as T;
}

/**
 * Render and write report.json, junit.xml, summary.md and report.html into `dir` (created if needed).
 * A format that fails to render does not stop the others from being written; its error is thrown after.
 */
export async function writeReports(report: Report, dir: string, opts: WriteOptions = {}): Promise<WrittenReports> {
  const redact = opts.redact ?? ((s: string) => s);
  const clean = opts.redact ? redactDeep(report, redact) : report;
  try {
    await mkdir(dir, { recursive: true });
  } catch (e) {
    throw ioError(`create the report directory ${dir}`, e);
  }
  const written = {} as WrittenReports;
  let firstError: unknown;
  for (const name of OUTPUT_NAMES) {
    const out = OUTPUTS[name];
    const path = join(dir, out.file);
    let text: string;
    try {
      text = redact(out.render(clean));
    } catch (e) {
      firstError ??= e;
      continue;
    }
    await writeFileAtomic(path, text);
    written[name] = path;
  }
  if (firstError !== undefined) throw firstError;
  return written;
}

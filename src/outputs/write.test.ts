import { link, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedactor, parseKeys } from '../config/keys-file.js';
import { type Report, ReportSchema } from '../report/schema.js';
import { isPetloadError } from '../core/errors.js';
import { SAMPLE_KEYS, sampleReport, sampleRun } from '../testing/sample-report.js';
import { escapeText } from './escape.js';
import { mdText } from './markdown.js';
import { FOLDER_OUTPUTS, OUTPUTS } from './registry.js';
import { writeFileAtomic, writeReports } from './write.js';

let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'petload-write-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

/** Every file under `dir`, by its path there (`repro/x.sh`). */
async function readAll(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const e of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!e.isFile()) continue;
    const path = join(e.parentPath, e.name);
    out[relative(dir, path)] = await readFile(path, 'utf8');
  }
  return out;
}

describe('writeReports', () => {
  it('creates the directory and writes the four formats and the reproductions, nothing else', async () => {
    const dir = join(root, 'a', 'b', 'c');
    const report = sampleReport();
    const files = await writeReports(report, dir);
    expect(files).toEqual({
      json: join(dir, 'report.json'),
      junit: join(dir, 'junit.xml'),
      markdown: join(dir, 'summary.md'),
      html: join(dir, 'report.html'),
      repro: join(dir, 'repro'),
    });
    const written = await readAll(dir);
    const script = join('repro', 'ratelimit.reset-is-timestamp.free.sh');
    expect(Object.keys(written).sort()).toEqual(['junit.xml', 'report.html', 'report.json', script, 'summary.md']);
    for (const o of Object.values(OUTPUTS)) expect(written[o.file]).toBe(o.render(report));
    expect(written[script]).toBe(FOLDER_OUTPUTS.repro.render(report)['ratelimit.reset-is-timestamp.free.sh']);
    expect(ReportSchema.parse(JSON.parse(written['report.json']!))).toEqual(report);
  });

  it('still writes the other formats when one cannot render, then throws', async () => {
    const dir = join(root, 'partial');
    const bad = { ...sampleReport(), durationMs: 'long' } as unknown as Report;
    const err = await writeReports(bad, dir).catch((e: unknown) => e);
    expect(isPetloadError(err) && err.code).toBe('E_INTERNAL');
    expect((await readdir(dir)).sort()).toEqual(['junit.xml', 'report.html', 'repro', 'summary.md']);
  });

  it('leaves in repro/ only the scripts of the report it renders', async () => {
    const dir = join(root, 'again');
    await writeReports(sampleReport(), dir);
    const fixed = sampleReport();
    fixed.checks = fixed.checks.filter((c) => c.id !== 'ratelimit.reset-is-timestamp');
    const files = await writeReports(fixed, dir);
    expect(files.repro).toBeUndefined();
    expect((await readdir(dir)).sort()).toEqual(['junit.xml', 'report.html', 'report.json', 'summary.md']);
  });

  it('never lets a key reach a file, even where escaping would hide it from a text search', async () => {
    const keys = parseKeys(
      {
        keys: [
          { key: 'sk_<&"weird\'>_0123456789', plan: 'free', label: 'odd' },
          { key: SAMPLE_KEYS[1]!.secret, plan: 'pro' },
        ],
      },
      'test',
    );
    const secrets = keys.map((k) => k.secret);
    // The key as each format would spell it: raw, escaped for HTML/XML, for JSON, for Markdown, and a part of it.
    const forms = (s: string) => [s, escapeText(s), JSON.stringify(s).slice(1, -1), mdText(s), s.slice(4, -4)];
    for (const secret of secrets) {
      const { report } = sampleRun({ leak: secret });
      const leaky = join(root, `leaky-${secrets.indexOf(secret)}`);
      await writeReports(report, leaky);
      // Control: without the redactor the planted key does reach every file.
      for (const [file, text] of Object.entries(await readAll(leaky)))
        expect(
          forms(secret).some((f) => text.includes(f)),
          file,
        ).toBe(true);

      const dir = join(root, `redacted-${secrets.indexOf(secret)}`);
      await writeReports(report, dir, { redact: createRedactor(keys) });
      const written = await readAll(dir);
      for (const [file, text] of Object.entries(written)) {
        for (const form of forms(secret)) expect(text.includes(form), `${file} holds ${form}`).toBe(false);
      }
      expect(written['report.json']).toContain(`[key ${keys[secrets.indexOf(secret)]!.label}]`);
    }
  });
});

describe('writeFileAtomic', () => {
  it('replaces a report file planted as a hard link by a file of its own: the other name keeps its content', async () => {
    const dir = join(root, 'hard-links');
    await writeReports(sampleReport(), dir);
    const other = join(root, 'hard-links-victim.txt');
    await writeFile(other, 'keep me\n');
    const files = ['report.json', 'junit.xml', 'summary.md', 'report.html'];
    for (const f of files) {
      await rm(join(dir, f));
      await link(other, join(dir, f));
    }
    await writeReports(sampleReport(), dir);
    expect(await readFile(other, 'utf8')).toBe('keep me\n');
    expect((await stat(other)).nlink).toBe(1);
    for (const f of files) expect((await stat(join(dir, f))).nlink, f).toBe(1);
    expect(JSON.parse(await readFile(join(dir, 'report.json'), 'utf8')).tool.name).toBe('petload');
  });

  it('replaces a file so that a reader sees the old or the new content, never a part', async () => {
    const path = join(root, 'atomic.txt');
    const before = 'a'.repeat(8 << 20);
    const after = 'b'.repeat(8 << 20);
    await writeFile(path, before);
    let done = false;
    const writing = writeFileAtomic(path, after).finally(() => {
      done = true;
    });
    const seen = new Set<string>();
    for (let i = 0; i < 200 && !done; i++) {
      const text = await readFile(path, 'utf8');
      seen.add(text === before ? 'old' : text === after ? 'new' : `partial ${text.length}`);
    }
    await writing;
    expect(seen.size).toBeGreaterThan(0);
    expect([...seen].filter((s) => s.startsWith('partial'))).toEqual([]);
    expect(await readFile(path, 'utf8')).toBe(after);
    expect((await readdir(root)).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  it('fails with a usage error naming the path and leaves no temporary file', async () => {
    const dir = join(root, 'blocked');
    await writeFile(dir, 'a file where a directory should be');
    const err = await writeReports(sampleReport(), dir).catch((e: unknown) => e);
    expect(isPetloadError(err) && err.code).toBe('E_USAGE');
    expect((err as Error).message).toContain(dir);
    const target = join(root, 'missing-dir', 'x.json');
    const err2 = await writeFileAtomic(target, '{}').catch((e: unknown) => e);
    expect(isPetloadError(err2) && err2.message).toContain(target);
    expect((await readdir(root)).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });
});

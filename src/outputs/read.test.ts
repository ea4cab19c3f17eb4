import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Report } from '../report/schema.js';
import { isPetloadError } from '../core/errors.js';
import { sampleReport } from '../testing/sample-report.js';
import { renderJson } from './json.js';
import { readReportFile } from './read.js';

let dir: string;
const report = sampleReport();

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'petload-read-'));
  await writeFile(join(dir, 'ok.json'), renderJson(report));
  const broken = JSON.parse(renderJson(report)) as Record<string, unknown>;
  delete broken.verdict;
  (broken.summary as Record<string, unknown>).failed = 'two';
  await writeFile(join(dir, 'broken.json'), JSON.stringify(broken));
  const badHistogram = JSON.parse(renderJson(report)) as Report;
  badHistogram.operations[1]!.histograms['2xx'] = 'not-a-histogram';
  await writeFile(join(dir, 'bad-histogram.json'), JSON.stringify(badHistogram));
  await writeFile(join(dir, 'not-json.json'), '{"schemaVersion": 1,');
  const many = JSON.parse(renderJson(report)) as Report;
  const one = many.operations[0]!.histograms.all!;
  many.operations[0]!.histograms = Object.fromEntries(Array.from({ length: 1001 }, (_, i) => [`c${i}`, one]));
  await writeFile(join(dir, 'many-histograms.json'), JSON.stringify(many));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('readReportFile', () => {
  it('reads back what renderJson wrote', () => {
    expect(readReportFile(join(dir, 'ok.json'))).toEqual(report);
  });

  it.each([
    [
      'broken.json',
      /broken\.json: not a valid petload report\n {2}verdict: expected one of pass, fail, aborted, found nothing.*\n {2}summary\.failed: expected .*number, found .*two/,
    ],
    [
      'bad-histogram.json',
      /bad-histogram\.json: not a valid petload report\n {2}operations\[1\]\.histograms\.2xx: not an encoded histogram/,
    ],
    ['not-json.json', /not-json\.json: not valid JSON \(/],
    [
      'many-histograms.json',
      /many-histograms\.json: not a valid petload report\n {2}operations: expected at most 1000 histograms, found \d{4}/,
    ],
    ['missing.json', /missing\.json: cannot read the report \(ENOENT\)/],
  ])('refuses %s with a usage error naming the file and the problem', (file, message) => {
    try {
      readReportFile(join(dir, file));
      expect.unreachable();
    } catch (e) {
      expect(isPetloadError(e) && e.code).toBe('E_USAGE');
      expect((e as Error).message).toMatch(message);
    }
  });
});

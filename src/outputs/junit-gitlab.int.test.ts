/**
 * junit.xml as GitLab reads it (`artifacts:reports:junit`), so that it is accepted as is (docs/ci.md says what
 * was checked). GitLab's parser (lib/gitlab/ci/parsers/test/junit.rb, read for this test) converts the file to
 * a hash, takes at most one top-level <testsuites>, reads test cases only from <testsuite> elements (nested
 * ones too), gives each case the status of its first <failure>, <error> or <skipped> child (else success),
 * reads `time` as seconds, and keys a case by its suite name, classname and name: of cases with the same key
 * only the first is shown. Files must end in .xml and stay under 30 MB.
 * Here that reading is done on the junit.xml of a real failing run, of a report with thresholds, and of an
 * aborted one, and every case of the file must come out of it, once, with the status petload meant.
 */
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadScenario } from '../config/load-scenario.js';
import type { Report } from '../report/schema.js';
import { runScenario } from '../engine/run.js';
import { sampleReport } from '../testing/sample-report.js';
import { parseXml, type XmlElement } from '../testing/xml.js';
import { renderJunit } from './junit.js';

interface GitlabCase {
  key: string;
  status: 'success' | 'failed' | 'error' | 'skipped';
  seconds: number;
}

/** GitLab's walk: the root's <testsuites> (one), then every <testsuite> below it, and their direct <testcase>s. */
function gitlabCases(xml: string): GitlabCase[] {
  const root = parseXml(xml);
  const out: GitlabCase[] = [];
  const suites = (el: XmlElement): void => {
    for (const s of el.children.filter((c) => c.name === 'testsuite')) {
      for (const tc of s.children.filter((c) => c.name === 'testcase')) {
        const has = (n: string) => tc.children.some((c) => c.name === n);
        const status = has('failure') ? 'failed' : has('error') ? 'error' : has('skipped') ? 'skipped' : 'success';
        out.push({
          key: `${s.attrs.name ?? ''}_${tc.attrs.classname ?? ''}_${tc.attrs.name ?? ''}`,
          status,
          seconds: Number(tc.attrs.time ?? '0'),
        });
      }
      suites(s);
    }
  };
  expect(root.name).toBe('testsuites');
  suites(root);
  return out;
}

/** Every <testcase> of the file, wherever it is. */
function allCases(el: XmlElement): XmlElement[] {
  return el.children.flatMap((c) => (c.name === 'testcase' ? [c, ...allCases(c)] : allCases(c)));
}

function acceptedAsIs(xml: string): GitlabCase[] {
  const cases = gitlabCases(xml);
  const inFile = allCases(parseXml(xml));
  // Nothing lost: every case of the file is one GitLab reads, and no two share a key.
  expect(cases.length).toBe(inFile.length);
  expect(new Set(cases.map((c) => c.key)).size).toBe(cases.length);
  for (const tc of inFile) {
    expect(tc.attrs.classname, 'classname (GitLab shows it as the suite)').toMatch(/^petload\.[a-z-]+$/);
    expect(tc.attrs.name).toBeTruthy();
    expect(tc.children.filter((c) => ['failure', 'error', 'skipped'].includes(c.name)).length).toBeLessThanOrEqual(1);
  }
  for (const c of cases) expect(Number.isFinite(c.seconds) && c.seconds >= 0).toBe(true);
  // The totals petload writes are the ones GitLab counts.
  const suite = parseXml(xml).children.find((c) => c.name === 'testsuite')!;
  expect(Number(suite.attrs.tests)).toBe(cases.length);
  expect(Number(suite.attrs.failures)).toBe(cases.filter((c) => c.status === 'failed').length);
  expect(Number(suite.attrs.errors)).toBe(cases.filter((c) => c.status === 'error').length);
  expect(Number(suite.attrs.skipped)).toBe(cases.filter((c) => c.status === 'skipped').length);
  return cases;
}

const dir = mkdtempSync(join(tmpdir(), 'petload-gitlab-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('junit.xml read as GitLab reads it', () => {
  it('a failing compliance run: every case kept, the failures failed, under the size limit', async () => {
    const run = await runScenario({
      scenario: loadScenario('compliance'),
      reportDir: dir,
      target: { kind: 'embedded', faults: ['retry-after-ms', 'no-headers-on-errors'] },
      plans: ['free', 'pro'],
    });
    expect(run.exitCode).toBe(1);
    expect(run.files).not.toBeNull();
    const path = run.files!.junit;
    expect(path.endsWith('.xml')).toBe(true);
    const xml = readFileSync(path, 'utf8');
    expect(statSync(path).size).toBeLessThan(30 * 2 ** 20);
    const cases = acceptedAsIs(xml);
    const failed = cases.filter((c) => c.status === 'failed').map((c) => c.key);
    expect(failed).toEqual(
      expect.arrayContaining([
        'petload.compliance_petload.retry-after_retry-after.plausible [free]',
        'petload.compliance_petload.ratelimit_ratelimit.headers-on-errors [pro]',
      ]),
    );
    expect(cases.some((c) => c.status === 'success')).toBe(true);
  });

  it('a report with thresholds, warnings and skips', () => {
    const cases = acceptedAsIs(renderJunit(sampleReport()));
    expect(cases.some((c) => c.key.includes('_petload.threshold_threshold.'))).toBe(true);
  });

  it('an aborted run: its error case is read as an error', () => {
    const aborted: Report = {
      ...sampleReport(),
      verdict: 'aborted',
      exitCode: 3,
      abortReason: 'the target stopped answering',
    };
    const cases = acceptedAsIs(renderJunit(aborted));
    expect(cases.filter((c) => c.status === 'error').map((c) => c.key.split('_').at(-1))).toEqual(['run [aborted]']);
  });
});

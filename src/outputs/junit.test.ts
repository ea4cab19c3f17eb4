import { describe, expect, it } from 'vitest';
import type { Report } from '../report/schema.js';
import { sampleReport } from '../testing/sample-report.js';
import { findAll, parseXml, type XmlElement } from '../testing/xml.js';
import { renderJunit } from './junit.js';

function cases(xml: string): XmlElement[] {
  return findAll(parseXml(xml), 'testcase');
}

function caseNamed(xml: string, name: string): XmlElement {
  const c = cases(xml).find((t) => t.attrs.name === name);
  if (!c) throw new Error(`no test case ${name}`);
  return c;
}

describe('renderJunit', () => {
  const report = sampleReport();
  const xml = renderJunit(report);

  it('writes one test case per check id per plan and one per threshold', () => {
    const thresholdIds = new Set(report.thresholds.map((t) => t.checkId));
    const expected = [
      ...report.checks
        .filter((c) => !thresholdIds.has(c.id))
        .flatMap((c) => c.byPlan.map((o) => (o.plan ? `${c.id} [${o.plan}]` : c.id))),
      ...report.thresholds.map((t) => t.checkId),
    ];
    const names = cases(xml).map((c) => c.attrs.name);
    expect(names).toEqual(expected);
    expect(new Set(names).size).toBe(names.length);
    expect(names).toContain('ratelimit.reset-is-timestamp [free]');
    expect(names).toContain('ratelimit.reset-is-timestamp [pro]');
    expect(names).toContain('threshold.p(95) < 250ms');
  });

  it('has suite totals that match the cases', () => {
    const suite = findAll(parseXml(xml), 'testsuite')[0]!;
    const all = cases(xml);
    expect(Number(suite.attrs.tests)).toBe(all.length);
    expect(Number(suite.attrs.failures)).toBe(all.filter((c) => c.children.some((e) => e.name === 'failure')).length);
    expect(Number(suite.attrs.skipped)).toBe(all.filter((c) => c.children.some((e) => e.name === 'skipped')).length);
    expect(Number(suite.attrs.failures)).toBe(2);
  });

  it('gives a failed critical check a failure with its message and evidence', () => {
    const c = caseNamed(xml, 'ratelimit.reset-is-timestamp [free]');
    expect(c.attrs.classname).toBe('petload.ratelimit');
    const failure = c.children.find((e) => e.name === 'failure')!;
    expect(failure.attrs.type).toBe('critical');
    expect(failure.attrs.message).toMatch(/looks like Unix milliseconds/);
    expect(failure.text).toMatch(/x-ratelimit-reset: \d{13}/);
    expect(failure.text).toMatch(/key: free#1/);
    expect(caseNamed(xml, 'ratelimit.reset-is-timestamp [pro]').children).toEqual([]);
  });

  it('reports a failed minor check as a passing case with a warning in system-out', () => {
    const c = caseNamed(xml, 'auth.challenge');
    expect(c.children.map((e) => e.name)).toEqual(['system-out']);
    expect(c.children[0]!.text).toMatch(/^WARNING \(minor\)/);
    expect(c.children[0]!.text).toMatch(/401 without a WWW-Authenticate header/);
  });

  it('gives a skipped check its reason and an info check its facts', () => {
    const skipped = caseNamed(xml, 'ratelimit.key-isolation [free]').children[0]!;
    expect(skipped.name).toBe('skipped');
    expect(skipped.attrs.message).toBe('needs two keys of the free plan; the keys file has one');
    const info = caseNamed(xml, 'ratelimit.what-counts [pro]').children[0]!;
    expect(info.name).toBe('system-out');
    expect(info.text).toContain('counted: ["200","201"]');
  });

  it('fails the case of a check cut short by an ended probe when no check failed for it; a skip when one did', () => {
    const r: Report = structuredClone(report);
    const o = r.checks.find((c) => c.id === 'ratelimit.key-isolation')!.byPlan[0]!;
    o.reasons = ['not judged: the probe ended early (its own time bound passed: 2 min 00 s of real time)'];
    o.cutShort = [];
    const failure = caseNamed(renderJunit(r), 'ratelimit.key-isolation [free]').children[0]!;
    expect(failure.name).toBe('failure');
    expect(failure.attrs.message).toBe(`${o.reasons[0]}; no check failed for it`);
    // Its owner failed (reset-is-timestamp fails in the sample): the case is the skip pointing at it.
    o.cutShort = ['ratelimit.reset-is-timestamp'];
    expect(caseNamed(renderJunit(r), 'ratelimit.key-isolation [free]').children[0]!.name).toBe('skipped');
  });

  it('judges thresholds by their observed value', () => {
    expect(caseNamed(xml, 'threshold.p(95) < 250ms').children.map((e) => e.name)).toEqual(['system-out']);
    const failure = caseNamed(xml, 'threshold.rate(429) < 1%').children[0]!;
    expect(failure.name).toBe('failure');
    expect(failure.attrs.message).toBe('rate(429) < 1%: observed 25%');
  });

  it('stays well-formed with hostile evidence and keeps its text', () => {
    const hostile = 'a ]]> b <x y="z"> & \u0000 \u0007 \ud800 \' "\nnext';
    const r: Report = structuredClone(report);
    const check = r.checks.find((c) => c.id === 'ratelimit.reset-is-timestamp')!;
    check.byPlan[0]!.evidence = [{ message: hostile, body: hostile, headers: { 'x-evil': hostile } }];
    check.byPlan[0]!.reasons = [hostile];
    r.scenario.name = hostile;
    const out = renderJunit(r);
    const failure = findAll(parseXml(out), 'failure')[0]!;
    expect(failure.attrs.message).toBe('a ]]> b <x y="z"> & \\x{0} \\x{7} \\x{d800} \' "\nnext');
    expect(failure.text).toContain('body: a ]]> b <x y="z"> &');
  });

  it('adds an error case for an aborted run', () => {
    const r: Report = { ...report, verdict: 'aborted', exitCode: 130, abortReason: 'interrupted' };
    const c = caseNamed(renderJunit(r), 'run [aborted]');
    expect(c.children[0]!.name).toBe('error');
    expect(c.children[0]!.attrs.message).toBe('interrupted');
  });
});

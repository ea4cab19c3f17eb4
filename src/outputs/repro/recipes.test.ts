import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import type { CheckId } from '../../checks/catalogue.js';
import { CHECKS } from '../../checks/catalogue.js';
import type { CheckResult, Report } from '../../report/schema.js';
import { SAMPLE_KEYS, sampleReport } from '../../testing/sample-report.js';
import { callOf, type Evidence, keyVariable } from './failure.js';
import type { Recipe } from './recipe.js';
import { NO_REPLAY, RECIPES, reproductionOf } from './recipes.js';
import { renderRepro, reproductions } from './render.js';
import { writeScript } from './sh.js';
import { noReplay, type Reproduction, type Step } from './steps.js';

const FREE = 'free#1 (…abcd)';
const FREE2 = 'free#2 (…efgh)';

/** The sample report with one failed check on the free plan, with that evidence and info. */
function failing(id: CheckId, evidence: Partial<Evidence>[], info: Record<string, unknown> = {}): Report {
  const r = sampleReport();
  r.keys.push({ label: FREE2, plan: 'free', sacrificial: false, limits: { perMinute: 60, perDay: 1000 } });
  const ev = evidence.map((e) => ({ message: 'the defect', key: FREE, status: 200, headers: {}, ...e }));
  const check: CheckResult = {
    id,
    title: CHECKS[id].title,
    severity: CHECKS[id].severity,
    status: 'fail',
    counts: { passed: 0, failed: 1, skipped: 0 },
    byPlan: [
      { plan: 'free', status: 'fail', counts: { passed: 0, failed: 1, skipped: 0 }, evidence: ev, reasons: [], info },
    ],
  };
  r.checks = [check];
  return r;
}

function reproOf(r: Report): Reproduction {
  const check = r.checks[0]!;
  return reproductionOf({ report: r, check, outcome: check.byPlan[0]! });
}

function stepsOf(r: Report): readonly Step[] {
  const repro = reproOf(r);
  if (repro.kind !== 'replay') throw new Error(`no replay: ${repro.why}`);
  return repro.steps;
}

/** `sh -n`: the script parses. */
function parses(text: string): string {
  const r = spawnSync('sh', ['-n'], { input: text, encoding: 'utf8' });
  return r.status === 0 ? 'ok' : r.stderr;
}

describe('the reproduction recipes', () => {
  it('name each key variable after its label, never holding the key', () => {
    expect(keyVariable('free#1 (…5d16)')).toBe('PETLOAD_KEY_FREE_1');
    expect(keyVariable('my key/2 (…abcd)')).toBe('PETLOAD_KEY_MY_KEY_2');
    expect(keyVariable('--- (…abcd)')).toBe('PETLOAD_KEY_KEY');
  });

  it('read a request back from its evidence, body and credential included; a body cut short is not sent', () => {
    const r = sampleReport();
    const base = { message: 'm', key: FREE };
    expect(callOf(r, { ...base, request: 'POST /pets body={"name":"x"}' })).toEqual({
      method: 'POST',
      path: '/pets',
      body: '{"name":"x"}',
      as: { kind: 'key', variable: 'PETLOAD_KEY_FREE_1', label: FREE },
    });
    expect(callOf(r, { message: 'm', request: 'GET /pets' })?.as).toEqual({ kind: 'none' });
    expect(callOf(r, { message: 'm', request: 'GET /pets', key: 'unknown key' })?.as.kind).toBe('fixed');
    expect(callOf(r, { message: 'm', request: 'GET /pets', key: 'someone else' })).toBeNull();
    expect(callOf(r, { ...base, request: 'POST /pets body={"name":"xxxx…' })).toBeNull();
  });

  it('ratelimit.enforced: a fresh window, the minute spent at once, 429 in the same window, none accepted before a minute', () => {
    const steps = stepsOf(
      failing('ratelimit.enforced', [
        { request: 'GET /pets?limit=1', tag: 'probe:enforce' },
        { request: 'GET /store/orders', tag: 'probe:enforce' },
      ]),
    );
    expect(steps.map((s) => s.kind)).toEqual([
      'fresh-window',
      'send',
      'expect',
      'expect',
      'wait-retry-after',
      'expect',
    ]);
    expect(steps[5]).toMatchObject({ expect: { kind: 'minute-kept' } });
    expect(steps[1]).toMatchObject({ kind: 'send', times: 60, refusal: 'holds', call: { path: '/pets?limit=1' } });
    expect(steps[2]).toMatchObject({ expect: { kind: 'status', is: [429] }, sameWindow: true });
    expect(steps[3]).toMatchObject({ call: { path: '/store/orders' } });
  });

  it('ratelimit.enforced with a tolerance sends the figure with it; over a fleet of counters, no replay', () => {
    const r = failing('ratelimit.enforced', [{ request: 'GET /pets?limit=1' }]);
    r.keys[0] = { ...r.keys[0]!, limits: { perMinute: 60, perDay: 1000, tolerancePercent: 10 } };
    expect(stepsOf(r)[1]).toMatchObject({ times: 66 });
    const fleet = failing('ratelimit.enforced', [{ request: 'GET /pets?limit=1' }], { cause: '2 counters' });
    expect(reproOf(fleet)).toEqual({
      kind: 'no-replay',
      why: expect.stringMatching(/^a fleet's counters: 2 counters/),
    });
  });

  it('contract.error-shape: each distinct error request sent again, its body judged', () => {
    const steps = stepsOf(
      failing('contract.error-shape', [
        { request: 'POST /pets body={"categoryId":1}', status: 400 },
        { request: 'POST /pets body={"categoryId":1}', status: 400 },
        { request: 'GET /pets', key: undefined, status: 401 },
        { request: 'GET /pets?limit=1', status: 429 },
      ]),
    );
    expect(steps).toEqual([
      expect.objectContaining({
        call: expect.objectContaining({ body: '{"categoryId":1}' }),
        expect: { kind: 'error-body' },
      }),
      expect.objectContaining({ call: { method: 'GET', path: '/pets', as: { kind: 'none' } } }),
    ]);
  });

  it('retry-after.honest: the minute spent, a 429, its wait, then anything but 429', () => {
    const steps = stepsOf(failing('retry-after.honest', [{ request: 'GET /pets?limit=1', status: 429 }]));
    expect(steps.map((s) => (s.kind === 'expect' ? s.expect.kind : s.kind))).toEqual([
      'fresh-window',
      'send',
      'refused',
      'wait-retry-after',
      'not-status',
    ]);
  });

  it('ratelimit.key-isolation spends another key of the plan, then expects the evidence key served', () => {
    const steps = stepsOf(
      failing('ratelimit.key-isolation', [{ request: 'GET /pets?limit=1', key: FREE2, status: 429 }]),
    );
    expect(steps[1]).toMatchObject({ kind: 'send', call: { as: { variable: 'PETLOAD_KEY_FREE_1' } } });
    expect(steps.at(-1)).toMatchObject({
      call: { as: { variable: 'PETLOAD_KEY_FREE_2' } },
      expect: { kind: 'not-status' },
    });
  });

  it('say why a replay cannot show a race, and give the probe to re-run', () => {
    const r = failing('ratelimit.no-over-admission', [{ request: 'GET /pets?limit=1', tag: 'probe:burst' }]);
    const [e] = reproductions(r);
    expect(e).toMatchObject({ why: NO_REPLAY['ratelimit.no-over-admission'] });
    expect(e!.file).toBeUndefined();
    expect(e!.rerun).toBe('petload run compliance --probe burst --plan free --time-scale 60 --fault reset-in-ms');
    expect(renderRepro(r)).toEqual({});
  });

  it('refuse, at compile time, a recipe for an id that is no check', () => {
    const table = {
      // @ts-expect-error: not a check id
      'ratelimit.enforce': (): Reproduction => noReplay('x'),
    } satisfies Partial<Record<CheckId, Recipe>>;
    expect(Object.keys(table)).toHaveLength(1);
  });

  it("write scripts sh reads, for every recipe's steps, with the key only as a variable", () => {
    const requests: Partial<Evidence>[] = [
      { request: 'GET /pets?limit=1', status: 200, headers: { 'retry-after': '3' } },
      { request: 'POST /pets body={"name":"it\'s"}', status: 400 },
      { request: 'GET /store/orders', key: undefined, status: 401 },
    ];
    for (const id of Object.keys(RECIPES) as CheckId[]) {
      const r = failing(id, requests);
      const files = renderRepro(r);
      const name = `${id}.free.sh`;
      expect(Object.keys(files), id).toEqual([name]);
      expect(parses(files[name]!), id).toBe('ok');
      expect(files[name], id).toContain('PETLOAD_TARGET="${PETLOAD_TARGET:-http://127.0.0.1:45678/v1}"');
      for (const k of SAMPLE_KEYS) expect(files[name], id).not.toContain(k.secret);
    }
  });

  it('write each step with its expectation, and exit codes 1, 2 and 0 at the end', () => {
    const steps = stepsOf(failing('ratelimit.enforced', [{ request: 'GET /pets?limit=1' }]));
    const script = writeScript(
      {
        file: 'x.sh',
        check: 'ratelimit.enforced',
        title: 't',
        severity: 'critical',
        plan: 'free',
        defect: "request 61 wasn't refused\nsecond line",
        seen: 'then',
        target: 'http://h/v1?a=$(x)',
        timeScale: 60,
      },
      steps,
    );
    expect(parses(script.text)).toBe('ok');
    expect(script.text).toContain(
      "step 'GET /pets?limit=1 with PETLOAD_KEY_FREE_1' '429 (the limit is 60 a minute, all spent)'",
    );
    expect(script.text).toContain('PETLOAD_TARGET="${PETLOAD_TARGET:-http://h/v1?a=\\$(x)}"');
    expect(script.text).toContain("need PETLOAD_KEY_FREE_1 'free#1 (…abcd)'");
    expect(script.text).toContain("DEFECT SHOWN: request 61 wasn'\\''t refused second line'; exit 1");
    expect(script.preview.length).toBeLessThanOrEqual(14);
    expect(script.preview[0]).toBe('# petload reproduction: ratelimit.enforced (critical) on the free plan');
  });
});

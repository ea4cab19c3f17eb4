import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { layerFigures, limitsFor, PLANS, PUBLISHED_FIGURES } from '../api/plans.js';
import { PetloadError } from '../core/errors.js';
import { loadPlansFile, parsePlansText } from './plan-figures.js';

/** The message of the error parsing `text` throws, checking its code. */
function problem(text: string): string {
  try {
    parsePlansText(text, 'plans.yaml');
  } catch (e) {
    expect(e).toBeInstanceOf(PetloadError);
    expect((e as PetloadError).code).toBe('E_PLANS_FILE');
    expect((e as PetloadError).exitCode).toBe(2);
    return (e as Error).message;
  }
  throw new Error('no error');
}

describe('plans file', () => {
  it('reads YAML and JSON, either figure or both per plan', () => {
    expect(
      parsePlansText('plans:\n  pro: { perMinute: 600 }\n  enterprise: { perMinute: 5000, perDay: 2000000 }\n', 'p'),
    ).toEqual({
      pro: { perMinute: 600 },
      enterprise: { perMinute: 5000, perDay: 2_000_000 },
    });
    expect(parsePlansText('{"plans":{"free":{"perDay":2000}}}', 'p')).toEqual({ free: { perDay: 2000 } });
  });

  it('reads a declared tolerance as a fraction of the figure, beside the figures or alone', () => {
    expect(
      parsePlansText('plans:\n  pro: { perMinute: 600, tolerance: 5% }\n  free: { tolerance: 2.5 % }\n', 'p'),
    ).toEqual({ pro: { perMinute: 600, tolerance: 0.05 }, free: { tolerance: 0.025 } });
  });

  it.each([
    [
      'a misspelt plan',
      'plans:\n  por: { perMinute: 600 }\n',
      'plans.por: expected one of the keys free, pro, business, enterprise, found unknown key "por" (did you mean "pro"?)',
    ],
    [
      'a misspelt figure',
      'plans:\n  pro: { perMinut: 600 }\n',
      'plans.pro.perMinut: expected one of the keys perMinute, perDay, tolerance, found unknown key "perMinut" (did you mean "perMinute"?)',
    ],
    [
      'a figure of zero',
      'plans:\n  pro: { perMinute: 0 }\n',
      'plans.pro.perMinute: expected a whole number of requests per minute above 0, found number 0',
    ],
    [
      'a figure as text',
      'plans:\n  pro: { perDay: lots }\n',
      'plans.pro.perDay: expected a whole number of requests per day above 0, found "lots"',
    ],
    [
      'no figure',
      'plans:\n  pro: {}\n',
      'plans.pro: expected perMinute, perDay, tolerance or several of them, found none',
    ],
    [
      'a tolerance without %',
      'plans:\n  pro: { tolerance: 5 }\n',
      'plans.pro.tolerance: expected a percentage from 0% to 100%, such as "5%", found number 5',
    ],
    [
      'a tolerance over 100%',
      'plans:\n  pro: { tolerance: 150% }\n',
      'plans.pro.tolerance: expected a percentage from 0% to 100%, such as "5%"',
    ],
    ['no plans', 'pro: { perMinute: 600 }\n', 'pro: expected one of the keys plans, found unknown key "pro"'],
    ['an empty file', '', '(top level): expected a mapping with plans, found an empty document'],
    ['broken syntax', 'plans: { pro: [ }\n', 'plans.yaml: not valid JSON or YAML'],
  ])('names the file, the path and what was expected: %s', (_what, text, expected) => {
    const message = problem(text);
    expect(message.startsWith('plans.yaml')).toBe(true);
    expect(message).toContain(expected);
  });

  it('names a file it cannot read, and why', () => {
    const dir = mkdtempSync(join(tmpdir(), 'petload-plans-'));
    expect(() => loadPlansFile(join(dir, 'missing.yaml'))).toThrow(/missing\.yaml: cannot read plans file \(ENOENT\)/);
    writeFileSync(join(dir, 'p.yaml'), 'plans:\n  free: { perMinute: 30 }\n');
    expect(loadPlansFile(join(dir, 'p.yaml'))).toEqual({ free: { perMinute: 30 } });
  });
});

describe('layered figures', () => {
  it('lets later layers win figure by figure, keeping the rest', () => {
    const table = layerFigures(
      PUBLISHED_FIGURES,
      { pro: { perMinute: 450 }, free: { perDay: 3000 } },
      { pro: { perDay: 50_000 } },
      undefined,
    );
    expect(limitsFor('pro', undefined, table)).toEqual({ perMinute: 450, perDay: 50_000 });
    expect(limitsFor('free', undefined, table)).toEqual({ perMinute: PLANS.free.perMinute, perDay: 3000 });
    expect(limitsFor('business', undefined, table)).toEqual(PLANS.business);
    // A key's own figures win over the table.
    expect(limitsFor('pro', { perMinute: 10 }, table)).toEqual({ perMinute: 10, perDay: 50_000 });
    // The published table is left alone.
    expect(PUBLISHED_FIGURES.pro).toEqual({ perMinute: 300, perDay: 10_000 });
  });

  it('refuses a plan with a figure given nowhere', () => {
    expect(() => limitsFor('enterprise', { perMinute: 5 })).toThrow(
      'the enterprise plan needs perDay: enterprise has no published figures',
    );
  });
});

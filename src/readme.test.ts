/**
 * The README is the user's manual: it must name every public thing the code has (check ids, faults, probes,
 * executors, scenarios, error codes, exit codes, commands), so that docs and code stay in step.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CHECK_IDS } from './checks/catalogue.js';
import { commands } from './cli/commands.js';
import { shippedScenarioNames } from './config/load-scenario.js';
import { ERRORS, EXIT } from './errors.js';
import { EXECUTOR_NAMES } from './executors/names.js';
import { PROBE_NAMES } from './probes/names.js';
import { FAULT_NAMES } from './server/faults.js';

const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');

describe('README', () => {
  it('has the two-line quick start', () => {
    expect(readme).toContain('npm ci && npm start');
    expect(readme).toContain('npm test');
  });

  const table: [string, readonly string[]][] = [
    ['check id', CHECK_IDS],
    ['fault', FAULT_NAMES],
    ['probe', PROBE_NAMES],
    ['executor', EXECUTOR_NAMES],
    ['scenario', shippedScenarioNames()],
    ['error code', Object.keys(ERRORS)],
  ];
  for (const [what, names] of table) {
    it(`names every ${what}`, () => {
      const missing = names.filter((n) => !readme.includes(`\`${n}\``) && !readme.includes(n));
      expect(missing).toEqual([]);
    });
  }

  it('documents every exit code', () => {
    for (const code of new Set(Object.values(EXIT))) expect(readme).toMatch(new RegExp(`^\\| ${code} \\|`, 'm'));
  });

  it('documents every command', () => {
    for (const c of commands) {
      const name = String(c.command).split(' ')[0]!;
      expect(readme).toContain(`petload ${name}`);
    }
  });
});

/**
 * `petload list scenarios|checks|executors|faults|probes`: the registries, as plain text. The names come from
 * the modules that hold names only; the scenarios are read (and validated) by the scenario loader, imported
 * only for `list scenarios`.
 */
import type { Argv } from 'yargs';
import { CATALOGUE, CHECK_IDS } from '../checks/catalogue.js';
import { EXECUTORS, EXECUTOR_NAMES } from '../executors/names.js';
import { PROBES, PROBE_NAMES } from '../probes/names.js';
import { FAULTS, FAULT_NAMES } from '../reference-server/faults.js';
import { command } from './command.js';

const WHAT = ['scenarios', 'checks', 'executors', 'faults', 'probes'] as const;
type What = (typeof WHAT)[number];

const pad = (rows: [string, string][]) => {
  const w = Math.max(...rows.map(([a]) => a.length));
  return rows.map(([a, b]) => `${a.padEnd(w)}  ${b}`).join('\n');
};

export async function listing(what: What): Promise<string> {
  switch (what) {
    case 'scenarios': {
      const { listScenarios } = await import('../config/load-scenario.js');
      return pad(listScenarios().map((s) => [s.name, s.description]));
    }
    case 'checks':
      return pad(CHECK_IDS.map((id) => [id, `${CATALOGUE[id].severity.padEnd(8)}  ${CATALOGUE[id].title}`]));
    case 'executors':
      return pad(EXECUTOR_NAMES.map((n) => [n, EXECUTORS[n]]));
    case 'faults':
      return pad(FAULT_NAMES.map((n) => [n, FAULTS[n]]));
    case 'probes':
      return pad(PROBE_NAMES.map((n) => [n, PROBES[n]]));
  }
}

export const listCommand = command({
  command: 'list <what>',
  describe: 'List scenarios, checks, executors, faults or probes',
  builder: (y: Argv) => y.positional('what', { choices: WHAT, demandOption: true }),
  handler: async (argv) => {
    process.stdout.write(`${await listing(argv.what)}\n`);
  },
});

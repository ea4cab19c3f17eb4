/**
 * `petload validate <file>...`: check scenario files without running them. Exit 0 if all are valid, else 2.
 * The scenario loader (the schema of a whole scenario) is imported when the command runs.
 */
import type { Argv } from 'yargs';
import { PetloadError, isPetloadError } from '../core/errors.js';
import { command } from './command.js';

export const validateCommand = command({
  command: 'validate <files..>',
  describe: 'Check scenario files (paths or shipped names) and list every problem, without running anything',
  builder: (y: Argv) =>
    y.positional('files', {
      type: 'string',
      array: true,
      demandOption: true,
      describe: 'Scenario files or shipped scenario names',
    }),
  handler: async (args) => {
    (await import('./one-shot.js')).parseWithoutCompiling();
    const { loadScenario } = await import('../config/load-scenario.js');
    let invalid = 0;
    for (const file of args.files) {
      try {
        const scenario = loadScenario(file);
        process.stdout.write(`ok ${file} (${scenario.name})\n`);
      } catch (e) {
        if (!isPetloadError(e)) throw e;
        invalid++;
        process.stderr.write(`${e.message}\n`);
      }
    }
    if (invalid > 0) {
      throw new PetloadError(
        'E_SCENARIO',
        `${invalid} of ${args.files.length} scenario file${args.files.length === 1 ? '' : 's'} ${invalid === 1 ? 'is' : 'are'} invalid`,
      );
    }
  },
});

/**
 * The CLI: the only code that touches argv, the environment, stdout and the exit code (with src/cli/*).
 * yargs is imported here and nowhere else; each command lives in its own file as a plain CommandModule.
 */
import yargs, { type Argv } from 'yargs';
import { hideBin } from 'yargs/helpers';
import { commands } from './commands.js';
import { reportFatal } from './fatal.js';

const argv = hideBin(process.argv);

let cli: Argv = yargs(argv)
  .scriptName('petload')
  .usage('$0 <command> [options]\n\nLoad-testing and rate-limit compliance suite for the Animal Store API.')
  .strict()
  .demandCommand(1, 'Name a command: run, serve, list, validate, report or merge.')
  .recommendCommands()
  .help()
  .alias('h', 'help')
  .version()
  .wrap(Math.min(110, process.stdout.columns || 110))
  .fail((msg, err) => {
    if (err) reportFatal(err);
    else reportFatal(new UsageError(msg));
  });
for (const c of commands) cli = cli.command(c);

class UsageError extends Error {}

try {
  await cli.parseAsync();
} catch (e) {
  reportFatal(e);
}

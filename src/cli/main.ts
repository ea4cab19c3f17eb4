/**
 * The CLI: the only code that touches argv, the environment, stdout and the exit code (with src/cli/*).
 * yargs is imported here and nowhere else; each command lives in its own file as a plain CommandModule.
 */
import yargs, { type Argv } from 'yargs';
import { hideBin } from 'yargs/helpers';
import { createRedactor } from '../config/keys-file.js';
import { VERSION } from '../engine/version.js';
import { keysNamedBy, refuseKeysOnArgv } from './argv-keys.js';
import { commands } from './commands.js';
import { reportFatal } from './fatal.js';
import { usageError } from './usage.js';

const argv = hideBin(process.argv);
const secrets = keysNamedBy(argv, process.env);
const redact = createRedactor(secrets);
const commandNames = commands.map((c) => String(c.command).split(' ')[0]!);
const usages = Object.fromEntries(commands.map((c) => [String(c.command).split(' ')[0]!, String(c.command)]));

/** The long options of the command being parsed (yargs has getOptions at run time; its typings lack it). */
const optionsOf = (y: Argv): string[] =>
  Object.keys((y as unknown as { getOptions(): { key: Record<string, unknown> } }).getOptions().key);

let cli: Argv = yargs(argv)
  .scriptName('petload')
  .usage('$0 <command> [options]\n\nLoad-testing and rate-limit compliance suite for the Animal Store API.')
  .strict()
  .demandCommand(1, `Name a command: ${commandNames.join(', ')}.`)
  .recommendCommands()
  .help()
  .alias('h', 'help')
  // The version is given, not guessed: yargs would look for a package.json near the working directory.
  .version(VERSION)
  .wrap(Math.min(110, process.stdout.columns || 110))
  // yargs' messages (passed as msg, or thrown as a YError) become one line naming the flag, what was expected
  // and what was found; errors thrown by a command's check pass through as they are.
  .fail((msg, err) => {
    const yargsMessage = err === undefined || err === null ? msg : err.name === 'YError' ? err.message : null;
    reportFatal(
      yargsMessage === null
        ? err
        : usageError(yargsMessage, { argv, commands: commandNames, usages, options: optionsOf(cli) }),
      redact,
    );
  });
for (const c of commands) cli = cli.command(c);

try {
  // Before parsing: no message may echo an argument that carries a key.
  refuseKeysOnArgv(argv, secrets);
  await cli.parseAsync();
} catch (e) {
  reportFatal(e, redact);
}

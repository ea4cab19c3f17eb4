/**
 * The CLI: the only code that touches argv, the environment, stdout and the exit code (with src/cli/*).
 * yargs is imported here and nowhere else (its types in the commands' files); each command lives in its own file as a
 * plain CommandModule, its arguments typed by its builder (./command.ts).
 * What is loaded before the command line is parsed is kept to yargs and name lists: each command imports what it
 * does when it runs, the keys file's reader is imported only when a keys source is named, and the rewording of
 * yargs' complaints (./usage.ts, with its did-you-mean) only when there is one.
 */
import yargs, { type Argv } from 'yargs';
import { hideBin } from 'yargs/helpers';
import { createRedactor } from '../config/redactor.js';
import { VERSION } from '../engine/version.js';
import { keysNamedBy, refuseKeysOnArgv } from './argv-keys.js';
import { commands } from './commands.js';
import { reportFatal } from './fatal.js';

const argv = hideBin(process.argv);
const secrets = await keysNamedBy(argv, process.env);
const redact = createRedactor(secrets);
const commandNames = commands.map((c) => String(c.command).split(' ')[0]!);
const usages = Object.fromEntries(commands.map((c) => [String(c.command).split(' ')[0]!, String(c.command)]));

/**
 * The long options of the command being parsed, as yargs' parser last knew them (its typed `parsed`): every key
 * it was told of, less the camel-cased copies it added itself and the one-letter aliases (-h).
 */
const optionsOf = (y: Argv): string[] => {
  const parsed = y.parsed;
  if (parsed === false) return [];
  return Object.keys(parsed.aliases).filter((k) => k.length > 1 && parsed.newAliases[k] !== true);
};

/**
 * A complaint of yargs about the command line, with the options of the command being parsed when it came,
 * thrown out of yargs (which stops there) to be worded by ./usage.ts once that is loaded.
 */
class UsageFailure {
  constructor(
    readonly message: string,
    readonly options: string[],
  ) {}
}

let cli: Argv = yargs(argv)
  .scriptName('petload')
  // One language whatever the environment's locale: yargs would translate its complaints from LANG/LC_ALL, and
  // ./usage.ts words them from yargs' English messages (a German `Unbekanntes Argument` would pass through raw).
  .locale('en')
  .usage('$0 <command> [options]\n\nLoad-testing and rate-limit compliance suite for the Animal Store API.')
  .strict()
  .demandCommand(1, `Name a command: ${commandNames.join(', ')}.`)
  .recommendCommands()
  .help()
  .alias('h', 'help')
  // The version is given, not guessed: yargs would look for a package.json near the working directory.
  .version(VERSION)
  // yargs renders the whole help of a command before it runs it, in case the command fails; wrapping that text is
  // most of its cost (a tenth of `petload k8s`'s start), and only --help shows it: petload words its own failures.
  .wrap(argv.some((a) => a === '--help' || a === '-h') ? Math.min(110, process.stdout.columns || 110) : null)
  // yargs' messages (passed as msg, or thrown as a YError) become one line naming the flag, what was expected
  // and what was found; errors thrown by a command's check or handler pass through as they are.
  .fail((msg, err) => {
    // On its way out: yargs hands a rejection of the parse to its failure handler too.
    if (err instanceof UsageFailure) throw err;
    const yargsMessage = err === undefined || err === null ? msg : err.name === 'YError' ? err.message : null;
    if (yargsMessage === null) reportFatal(err, redact);
    throw new UsageFailure(yargsMessage, optionsOf(cli));
  });
for (const c of commands) cli = c.register(cli);

/** One line and a hint on stderr, and the exit code, for whatever stopped the command. */
async function fail(e: unknown): Promise<never> {
  const usage =
    e instanceof UsageFailure
      ? e
      : e instanceof Error && e.name === 'YError'
        ? new UsageFailure(e.message, optionsOf(cli))
        : null;
  if (usage === null) reportFatal(e, redact);
  const { usageError } = await import('./usage.js');
  reportFatal(usageError(usage.message, { argv, commands: commandNames, usages, options: usage.options }), redact);
}

try {
  // Before parsing: no message may echo an argument that carries a key.
  refuseKeysOnArgv(argv, secrets);
  await cli.parseAsync();
} catch (e) {
  await fail(e);
}

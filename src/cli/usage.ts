/**
 * yargs' own complaints about a command line ("Unknown arguments: frob, frob", "Invalid values:\n  Argument: plan,
 * Given: …", "Did you mean run?"), rewritten as one line that names the flag or word, what was expected and what
 * was found, with a did-you-mean of our own. Pure: main.ts hands over the message and what the parser knows.
 */
import { didYouMean } from '../core/zod-issues.js';
import { PetloadError } from '../core/errors.js';

export interface UsageContext {
  /** The command line after the program name. */
  readonly argv: readonly string[];
  /** The command names. */
  readonly commands: readonly string[];
  /** Each command's usage as declared, e.g. `run <scenarios..>`, by name. */
  readonly usages?: Readonly<Record<string, string>>;
  /** The long option names the command being parsed accepts. */
  readonly options: readonly string[];
}

const BUILT_IN = new Set(['help', 'version']);

/** The first word that is not an option: the command, as typed. */
function typedCommand(argv: readonly string[]): string | undefined {
  return argv.find((a) => !a.startsWith('-'));
}

const kebab = (s: string) => s.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

/** `"a", "b c"` → ['a', 'b c'] (yargs quotes given values and choices with JSON.stringify). */
function quoted(list: string): string[] {
  const out: string[] = [];
  for (const m of list.matchAll(/"((?:[^"\\]|\\.)*)"|([^,\s][^,]*)/g))
    out.push(m[1] !== undefined ? (JSON.parse(`"${m[1]}"`) as string) : m[2]!.trim());
  return out;
}

const suggest = (word: string, candidates: readonly string[], prefix = '') => {
  const hint = didYouMean(word, candidates);
  return hint === undefined ? '' : ` (did you mean "${prefix}${hint}"?)`;
};

function unknownCommand(word: string, ctx: UsageContext): string {
  return `unknown command "${word}"${suggest(word, ctx.commands)}; the commands are ${ctx.commands.join(', ')}`;
}

function unknownArguments(names: string[], ctx: UsageContext): string {
  const command = typedCommand(ctx.argv);
  const accepted = ctx.options.filter((o) => !BUILT_IN.has(o));
  // yargs lists a dashed option twice, as typed and camel-cased: keep the typed form.
  const typed = [...new Set(names)].filter((n) => !(/[A-Z]/.test(n) && names.includes(kebab(n))));
  return typed
    .map((name) => {
      const isOption = ctx.argv.some(
        (a) => a === `--${name}` || a.startsWith(`--${name}=`) || a === `-${name}` || a.startsWith(`--no-${name}`),
      );
      if (isOption) return `unknown option --${name}${suggest(name, accepted, '--')}`;
      if (name === command && !ctx.commands.includes(name)) return unknownCommand(name, ctx);
      return `unexpected argument "${name}"${command && ctx.commands.includes(command) ? ` (petload ${command} takes no more arguments here)` : ''}`;
    })
    .join('; ');
}

function invalidValues(lines: string[], ctx: UsageContext): string {
  const typedAsOption = (name: string) => ctx.argv.some((a) => a === `--${name}` || a.startsWith(`--${name}=`));
  return lines
    .map((line) => /^\s*Argument: (.+?), Given: (.+), Choices: (.+)$/.exec(line))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => {
      const given = quoted(m[2]!);
      const choices = quoted(m[3]!);
      const found = given.map((g) => JSON.stringify(g)).join(', ');
      const hint = given.length === 1 ? suggest(given[0]!, choices) : '';
      // A positional (`petload list <what>`) is named as in the usage, an option as typed.
      const name = typedAsOption(m[1]!) ? `--${m[1]!}` : `<${m[1]!}>`;
      return `${name}: expected one of ${choices.join(', ')}, found ${found}${hint}`;
    })
    .join('; ');
}

/** One line for a yargs failure message. */
export function rewriteUsage(message: string, ctx: UsageContext): string {
  const lines = message.split('\n').filter((l) => l.trim() !== '');
  const first = lines[0] ?? '';
  const command = typedCommand(ctx.argv);
  let m: RegExpExecArray | null;
  if (/^Did you mean .+\?$/.test(first) && command !== undefined) return unknownCommand(command, ctx);
  if ((m = /^Unknown arguments?: (.+)$/.exec(first))) return unknownArguments(m[1]!.split(', '), ctx);
  if (/^Invalid values?:$/.test(first)) {
    const text = invalidValues(lines.slice(1), ctx);
    if (text !== '') return text;
  }
  const usage = command !== undefined ? ctx.usages?.[command] : undefined;
  const usageNote = usage !== undefined ? ` (usage: petload ${usage})` : '';
  if ((m = /^Not enough non-option arguments: got (\d+), need at least (\d+)$/.exec(first))) {
    return `${command ?? 'petload'}: expected at least ${m[2]!} argument${m[2] === '1' ? '' : 's'}, found ${m[1] === '0' ? 'none' : m[1]!}${usageNote}`;
  }
  if ((m = /^Too many non-option arguments: got (\d+), maximum of (\d+)$/.exec(first))) {
    return `${command ?? 'petload'}: expected at most ${m[2]!} argument${m[2] === '1' ? '' : 's'}, found ${m[1]!}${usageNote}`;
  }
  if ((m = /^Not enough arguments following: (.+)$/.exec(first)))
    return `--${m[1]!}: expected a value after it, found none`;
  if ((m = /^Missing required arguments?: (.+)$/.exec(first)))
    return `missing ${m[1]!
      .split(', ')
      .map((n) => `--${n}`)
      .join(', ')}`;
  return lines.map((l) => l.trim()).join('; ');
}

/** The tool error for a yargs failure: exit 2, a hint naming the command's help. */
export function usageError(message: string, ctx: UsageContext): PetloadError {
  const command = typedCommand(ctx.argv);
  const help = command !== undefined && ctx.commands.includes(command) ? `petload ${command} --help` : 'petload --help';
  return new PetloadError('E_USAGE', rewriteUsage(message, ctx), { hint: `See \`${help}\`.` });
}

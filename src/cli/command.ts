/**
 * A command of the CLI as its file declares it: a yargs CommandModule whose arguments' type is inferred from its
 * builder's own chain of `.positional()` and `.option()` calls, so that the handler reads exactly what the parser
 * declared, with no hand-written interface to disagree with it and no cast between them.
 */
import type { Argv, CommandModule } from 'yargs';

/** `command({ builder: (y) => y.option(…), handler: (args) => … })`: the handler's `args` typed by the builder. */
export const command = <U>(module: CommandModule<object, U>): CommandModule<object, U> => module;

/** What a builder declares: `ArgsOf<typeof builder>` is the type of the arguments its handler receives. */
export type ArgsOf<B extends (y: Argv) => Argv<unknown>> = ReturnType<B> extends Argv<infer U> ? U : never;

/**
 * A command in the registry: its usage (`list <what>`), and how to hand it to yargs, which checks each command's
 * arguments against its own builder; the arguments' type stays inside `register`, where it is known.
 */
export interface RegisteredCommand {
  readonly command: string;
  register(cli: Argv): Argv;
}

export const registered = <U>(module: CommandModule<object, U>): RegisteredCommand => ({
  command: String(module.command),
  register: (cli) => cli.command(module),
});

/**
 * The registry of CLI commands, one file each. Each command's file holds what the parser needs (its flags and
 * their checks) and imports what the command does only when it runs, so that this registry, which main.ts
 * loads for every command, loads no engine, HTTP client, metrics or scenario schema.
 */
import type { CommandModule } from 'yargs';
import { compareCommand } from './compare.js';
import { k8sCommand } from './k8s.js';
import { listCommand } from './list.js';
import { mergeCommand } from './merge.js';
import { reportCommand } from './report.js';
import { runCommand } from './run.js';
import { serveCommand } from './serve.js';
import { trendCommand } from './trend.js';
import { validateCommand } from './validate.js';

/**
 * A command with its arguments' type forgotten: the registry is read for the commands' names and handed to
 * yargs, which checks each command's arguments against its own builder.
 */
const untyped = <U>(command: CommandModule<object, U>): CommandModule => command as unknown as CommandModule;

export const commands: readonly CommandModule[] = [
  runCommand,
  untyped(listCommand),
  untyped(validateCommand),
  untyped(reportCommand),
  untyped(mergeCommand),
  untyped(compareCommand),
  untyped(trendCommand),
  untyped(serveCommand),
  untyped(k8sCommand),
];

/**
 * The registry of CLI commands, one file each. Each command's file holds what the parser needs (its flags and
 * their checks) and imports what the command does only when it runs, so that this registry, which main.ts
 * loads for every command, loads no engine, HTTP client, metrics or scenario schema.
 */
import { type RegisteredCommand, registered } from './command.js';
import { compareCommand } from './compare.js';
import { k8sCommand } from './k8s.js';
import { listCommand } from './list.js';
import { mergeCommand } from './merge.js';
import { reportCommand } from './report.js';
import { rerunCommand } from './rerun.js';
import { runCommand } from './run.js';
import { serveCommand } from './serve.js';
import { trendCommand } from './trend.js';
import { validateCommand } from './validate.js';

export const commands: readonly RegisteredCommand[] = [
  registered(runCommand),
  registered(listCommand),
  registered(validateCommand),
  registered(reportCommand),
  registered(mergeCommand),
  registered(compareCommand),
  registered(rerunCommand),
  registered(trendCommand),
  registered(serveCommand),
  registered(k8sCommand),
];

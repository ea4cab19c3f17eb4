/** The registry of CLI commands, one file each. */
import type { CommandModule } from 'yargs';
import { k8sCommand } from './k8s.js';
import { listCommand } from './list.js';
import { mergeCommand } from './merge.js';
import { reportCommand } from './report.js';
import { runCommand } from './run.js';
import { serveCommand } from './serve.js';
import { validateCommand } from './validate.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export const commands: CommandModule<any, any>[] = [
  runCommand,
  listCommand,
  validateCommand,
  reportCommand,
  mergeCommand,
  serveCommand,
  k8sCommand,
];

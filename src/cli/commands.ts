/** The registry of CLI commands, one file each. */
import type { CommandModule } from 'yargs';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export const commands: CommandModule<any, any>[] = [];

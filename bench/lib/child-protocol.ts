/**
 * How the bench's child processes talk to bench/main.ts: a child writes its result as one marked JSON line
 * on stdout (nothing else goes there), and a server child first writes its address the same way, then
 * answers recording requests over the IPC channel.
 */
import type { Arrivals, BareMode } from '../peers/bare-server.js';

export const RESULT_MARK = '@bench-result ';

/** Write the child's result (or a server's address) for the parent to read. */
export function emitResult(value: unknown): void {
  process.stdout.write(`${RESULT_MARK}${JSON.stringify(value)}\n`);
}

/** The marked results in a child's stdout, in order. */
export function readResults(stdout: string): unknown[] {
  return stdout
    .split('\n')
    .filter((line) => line.startsWith(RESULT_MARK))
    .map((line) => JSON.parse(line.slice(RESULT_MARK.length)) as unknown);
}

/** What a server child serves: a bare peer, or the reference server with the bench key (from the environment). */
export type ServeSpec = BareMode | { kind: 'reference' };

export interface ServerReady {
  url: string;
}

/**
 * What a server child noted between `record` and `collect`: the arrivals (bare peers only; empty for the
 * reference server) and the CPU time the server process used, which a crowded machine disturbs far less
 * than it disturbs requests per second.
 */
export interface Recording extends Arrivals {
  /** User + system CPU µs of the server process. */
  cpuMicros: number;
}

/** Parent → server child. `record` starts noting (arrivals: bare peers only); `collect` stops and asks for what was noted. */
export type ServerCommand = { cmd: 'record'; capacity: number } | { cmd: 'collect' };
/** Server child → parent, one per command. */
export type ServerReply = { cmd: 'record' } | { cmd: 'collect'; recording: Recording };

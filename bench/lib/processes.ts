/**
 * The bench's processes: every load generator and every server runs in a child process of its own, the load
 * pinned to core 0 and the servers to core 1 (`taskset`) where the machine has two, so that neither steals
 * the other's CPU and each run starts from a fresh heap and JIT, as the autocannon CLI does. Every child is
 * bounded in time: it is killed when it overruns its deadline.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import {
  readResults,
  type Recording,
  type ServeSpec,
  type ServerCommand,
  type ServerReady,
  type ServerReply,
} from './child-protocol.js';
import { KEY_ENV } from './key.js';

export interface Pinning {
  readonly pinned: boolean;
  /** How the processes were placed, for the report. */
  readonly note: string;
  /** Command prefix of load generators and of servers (empty when unpinned). */
  readonly load: readonly string[];
  readonly server: readonly string[];
}

/** Pin to cores 0 and 1 when there are two cores and taskset works; otherwise say why not. */
export function detectPinning(wanted: boolean): Pinning {
  const unpinned = (why: string): Pinning => ({ pinned: false, note: `unpinned: ${why}`, load: [], server: [] });
  if (!wanted) return unpinned('--no-pin given');
  const cores = availableParallelism();
  if (cores < 2) return unpinned(`${cores} core available`);
  const probe = spawnSync('taskset', ['-c', '1', process.execPath, '-e', '0'], { stdio: 'ignore' });
  if (probe.error !== undefined || probe.status !== 0) return unpinned('taskset is missing or cannot pin to core 1');
  return {
    pinned: true,
    note: `load generators on core 0, servers on core 1 (taskset; ${cores} cores)`,
    load: ['taskset', '-c', '0'],
    server: ['taskset', '-c', '1'],
  };
}

const tsxLoader = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;

/** Absolute path of a bench module, from its path relative to bench/. */
export function benchFile(relative: string): string {
  return fileURLToPath(new URL(`../${relative}`, import.meta.url));
}

/** argv of a TypeScript module run by node under tsx, behind a pinning prefix. */
function nodeCommand(
  prefix: readonly string[],
  file: string,
  nodeArgs: readonly string[],
  arg: unknown,
): [string, string[]] {
  const argv = [process.execPath, ...nodeArgs, '--import', tsxLoader, file, JSON.stringify(arg)];
  const [cmd, ...rest] = [...prefix, ...argv];
  return [cmd!, rest];
}

function childEnv(secret: string): NodeJS.ProcessEnv {
  return { ...process.env, [KEY_ENV]: secret };
}

export interface CommandResult {
  stdout: string;
  stderr: string;
}

export interface CommandOptions {
  readonly timeoutMs: number;
  /** Default: the bench's own. */
  readonly env?: NodeJS.ProcessEnv;
  /** The exit code that means success (default 0). */
  readonly expectedExit?: number;
  /** Called once the child is spawned (e.g. to sample its CPU time from /proc). */
  readonly onSpawn?: (child: ChildProcess) => void;
}

/**
 * Run a command to completion within `o.timeoutMs`; rejects on an exit code other than `o.expectedExit`,
 * naming the command's stderr.
 */
export function runCommand(cmd: string, args: readonly string[], o: CommandOptions): Promise<CommandResult> {
  const { timeoutMs, expectedExit = 0 } = o;
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], env: o.env ?? process.env });
    o.onSpawn?.(child);
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (code === expectedExit) resolve({ stdout, stderr });
      else {
        const why = signal === 'SIGKILL' ? `killed after ${timeoutMs} ms` : `exit ${code ?? signal}`;
        reject(
          new Error(`${args.find((a) => a.endsWith('.ts')) ?? cmd} failed (${why}): ${stderr.trim().slice(-2000)}`),
        );
      }
    });
  });
}

/** Run a bench module (relative to bench/) in a child node process and return the one result it emits. */
export async function runNodeChild<T>(
  prefix: readonly string[],
  module: string,
  arg: unknown,
  o: { timeoutMs: number; secret: string; nodeArgs?: readonly string[] },
): Promise<T> {
  const [cmd, args] = nodeCommand(prefix, benchFile(module), o.nodeArgs ?? [], arg);
  const { stdout } = await runCommand(cmd, args, { timeoutMs: o.timeoutMs, env: childEnv(o.secret) });
  const results = readResults(stdout);
  if (results.length !== 1) throw new Error(`${module} emitted ${results.length} results, expected 1`);
  return results[0] as T;
}

export interface ServerChild {
  readonly url: string;
  /** The server process's id (its CPU time can be sampled from /proc), when known. */
  readonly pid: number | undefined;
  /** Start noting CPU time and request arrivals (bare peers only), room for `capacity` of them. */
  record(capacity: number): Promise<void>;
  /** Stop noting and return what was noted. */
  collect(): Promise<Recording>;
  stop(): Promise<void>;
}

/** How long a server child may take to start listening. */
const SERVER_START_MS = 20_000;
/** How long a server child may take to answer a command or to exit. */
const SERVER_REPLY_MS = 10_000;

/** Start a server child (bench/peers/serve.ts), pinned to the server core; resolves once it listens. */
export async function startServerChild(pin: Pinning, spec: ServeSpec, secret: string): Promise<ServerChild> {
  const [cmd, args] = nodeCommand(pin.server, benchFile('peers/serve.ts'), [], spec);
  const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe', 'ipc'], env: childEnv(secret) });
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr = (stderr + d).slice(-4000)));
  const ready = await new Promise<ServerReady>((resolve, reject) => {
    let stdout = '';
    const timer = setTimeout(
      () => fail(new Error(`server ${spec.kind} did not start within ${SERVER_START_MS} ms`)),
      SERVER_START_MS,
    );
    const fail = (e: Error) => {
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(e);
    };
    child.on('error', fail);
    child.on('exit', (code) =>
      fail(new Error(`server ${spec.kind} exited (${code}) before listening: ${stderr.trim()}`)),
    );
    child.stdout!.setEncoding('utf8').on('data', (d: string) => {
      stdout += d;
      const [first] = readResults(stdout);
      if (first === undefined) return;
      clearTimeout(timer);
      child.removeAllListeners('exit');
      resolve(first as ServerReady);
    });
  });
  return {
    url: ready.url,
    pid: child.pid,
    async record(capacity) {
      await ask(child, { cmd: 'record', capacity });
    },
    async collect() {
      const r = await ask(child, { cmd: 'collect' });
      if (r.cmd !== 'collect') throw new Error(`server answered ${r.cmd} to collect`);
      return r.recording;
    },
    stop: () => stopChild(child),
  };
}

function ask(child: ChildProcess, command: ServerCommand): Promise<ServerReply> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.off('message', onMessage);
      reject(new Error(`server did not answer ${command.cmd} within ${SERVER_REPLY_MS} ms`));
    }, SERVER_REPLY_MS);
    const onMessage = (m: ServerReply) => {
      if (m.cmd !== command.cmd) return;
      clearTimeout(timer);
      child.off('message', onMessage);
      resolve(m);
    };
    child.on('message', onMessage);
    child.send(command);
  });
}

/** Close the IPC channel (the child closes its server and exits); kill it if it lingers. */
function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), SERVER_REPLY_MS);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    if (child.connected) child.disconnect();
    else child.kill('SIGTERM');
  });
}

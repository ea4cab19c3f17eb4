/**
 * Test-only: start the corpus's programs as child processes on loopback (a store script under tsx, Redis,
 * nginx, HAProxy), each with a bounded start-up wait, and stop them by their own pid.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { programPath } from '../../../src/testing/system-packages.js';

export interface Started {
  readonly child: ChildProcess;
  /** What the program printed (stdout and stderr), for a failure message. */
  output(): string;
  stop(): Promise<void>;
}

const START_TIMEOUT_MS = 20_000;

/** Spawn and wait until a line of output matches `ready` (bounded); returns the match. */
export async function startProcess(
  command: string,
  args: readonly string[],
  ready: RegExp,
  env: NodeJS.ProcessEnv = {},
): Promise<Started & { match: RegExpExecArray }> {
  const child = spawn(command, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const gone = new Promise<void>((r) => child.once('exit', () => r()));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 3_000);
    await gone;
    clearTimeout(timer);
  };
  const match = await new Promise<RegExpExecArray>((res, rej) => {
    const timer = setTimeout(
      () => rej(new Error(`${command} did not start within ${START_TIMEOUT_MS} ms:\n${out}`)),
      START_TIMEOUT_MS,
    );
    const onData = (d: Buffer) => {
      out += d.toString('utf8');
      const m = ready.exec(out);
      if (m) {
        clearTimeout(timer);
        res(m);
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      rej(new Error(`${command} exited (${code ?? signal}) before it was ready:\n${out}`));
    });
  }).catch(async (e: unknown) => {
    await stop();
    throw e;
  });
  return { child, match, output: () => out, stop };
}

const STORES_DIR = resolve(fileURLToPath(new URL('../stores/', import.meta.url)));

/** A store script of test/conformance/stores under tsx; resolves with its base URL (…/v1). */
export async function startStore(script: string, env: NodeJS.ProcessEnv): Promise<Started & { url: string }> {
  const p = await startProcess(
    process.execPath,
    ['--import', 'tsx', join(STORES_DIR, script)],
    /store listening (http:\/\/\S+)/,
    env,
  );
  return { ...p, url: p.match[1]! };
}

/** A free TCP port on 127.0.0.1 (for programs that cannot be told to pick one: Redis, nginx). */
export function freePort(): Promise<number> {
  return new Promise((res, rej) => {
    const s = createServer();
    s.once('error', rej);
    s.listen(0, '127.0.0.1', () => {
      const a = s.address();
      s.close(() => (a !== null && typeof a === 'object' ? res(a.port) : rej(new Error('no port'))));
    });
  });
}

/** Debian's redis-server on 127.0.0.1, in memory only. */
export async function startRedis(): Promise<Started & { url: string }> {
  const bin = programPath('redis-server');
  const port = await freePort();
  const p = await startProcess(
    bin,
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--daemonize', 'no'],
    /Ready to accept connections/,
  );
  return { ...p, url: `redis://127.0.0.1:${port}` };
}

/** Debian's nginx in the foreground with the given http{} body (a temp prefix holds its files). */
export async function startNginx(httpBlock: (port: number, dir: string) => string): Promise<Started & { url: string }> {
  const bin = programPath('nginx');
  const dir = mkdtempSync(join(tmpdir(), 'corpus-nginx-'));
  const port = await freePort();
  const conf = join(dir, 'nginx.conf');
  writeFileSync(
    conf,
    [
      'daemon off;',
      'worker_processes 1;',
      `pid ${join(dir, 'nginx.pid')};`,
      'error_log stderr notice;',
      'events { worker_connections 1024; }',
      `http {\n  access_log off;\n  client_body_temp_path ${dir}/body;\n  proxy_temp_path ${dir}/proxy;\n  fastcgi_temp_path ${dir}/fastcgi;\n  uwsgi_temp_path ${dir}/uwsgi;\n  scgi_temp_path ${dir}/scgi;\n${httpBlock(port, dir)}\n}`,
    ].join('\n'),
  );
  // With the error log on stderr at `notice`, nginx says when its worker has started.
  return gateway(
    await startProcess(bin, ['-p', dir, '-c', conf, '-e', 'stderr'], /start worker process \d+/),
    dir,
    port,
  );
}

/** Debian's HAProxy in the foreground (`-db`) with the given configuration (a temp folder holds its file). */
export async function startHaproxy(config: (port: number) => string): Promise<Started & { url: string }> {
  const bin = programPath('haproxy');
  const dir = mkdtempSync(join(tmpdir(), 'corpus-haproxy-'));
  const port = await freePort();
  const conf = join(dir, 'haproxy.cfg');
  writeFileSync(conf, config(port));
  // Verbose (`-V`), HAProxy names its polling mechanism once its listeners are bound.
  return gateway(
    await startProcess(bin, ['-db', '-V', '-f', conf], /Using \w+\(\) as the polling mechanism/),
    dir,
    port,
  );
}

/** A gateway process listening on `port`, its base URL, and a stop that also removes its temp folder `dir`. */
function gateway(p: Started, dir: string, port: number): Started & { url: string } {
  return {
    ...p,
    url: `http://127.0.0.1:${port}/v1`,
    stop: async () => {
      await p.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface KeysFiles {
  /** The keys file petload is given: `perPlan` keys per plan, each named as users name them, `<plan>-k<n>-<random>`. */
  petload: string;
  /** The store's keys file: the same keys and one more per plan, which petload never uses. */
  store: string;
  /** That extra key of a plan, to look at the store's answers directly after a run. */
  spare(plan: string): string;
}

export function writeKeysFiles(dir: string, plans: readonly string[], perPlan: number): KeysFiles {
  const make = (plan: string, n: number) => ({ key: `${plan}-k${n}-${randomBytes(12).toString('hex')}`, plan });
  const used = plans.flatMap((plan) => Array.from({ length: perPlan }, (_, i) => make(plan, i + 1)));
  const spares = new Map(plans.map((plan) => [plan, make(plan, perPlan + 1)]));
  const petload = join(dir, 'keys.json');
  const store = join(dir, 'store-keys.json');
  writeFileSync(petload, JSON.stringify({ keys: used }));
  writeFileSync(store, JSON.stringify({ keys: [...used, ...spares.values()] }));
  return {
    petload,
    store,
    spare: (plan) => {
      const k = spares.get(plan);
      if (!k) throw new Error(`no ${plan} keys were written`);
      return k.key;
    },
  };
}

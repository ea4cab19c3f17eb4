/**
 * The throughput rounds' peer server: Debian's nginx answering the list from memory, a server far faster than any
 * load generator here, so that a round compares the load generators and never the server. Every answer is a
 * `return 200` of a body kept in the configuration: the bare peer's list (bench/peers/bare-server.ts, `listBody`),
 * the first `limit` animals of the `status` asked for (a `map` of the query to the body), with
 * `default_type application/json`, nginx's Date and the rate-limit triple (`add_header ... always`): Limit the
 * bench key's figure, Remaining one below it, Reset the end of the current minute (a `map` of `$msec` to it,
 * one entry per second of the hours ahead), so that the passive checks take their passing path.
 *
 * One worker (`worker_processes 1`), started under the server core's pinning like every bench server, its access
 * log off, its files under a temporary prefix, on a free loopback port. Its CPU time is the worker's (its pid is
 * in the line nginx logs when it starts it): the master only waits.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { programPath } from '../../src/testing/system-packages.js';
import { BENCH_LIMITS } from '../lib/key.js';
import type { Pinning } from '../lib/processes.js';
import { listBody } from './bare-server.js';

/** How long nginx may take to start its worker. */
const START_MS = 20_000;
/** How long nginx may take to stop (SIGQUIT: finish what it serves) before it is killed. */
const STOP_MS = 5_000;
/** The seconds ahead for which Reset is the minute's end (beyond them, the last minute's): longer than any bench. */
export const RESET_HORIZON_S = 6 * 3600;
/** The `status` values the load asks for ('' for none), and the `limit` values (the load draws 1..100). */
const STATUSES = ['', 'available', 'pending', 'sold'] as const;
const MAX_LIMIT = 100;

export interface NginxServer {
  /** Base address, e.g. `http://127.0.0.1:PORT/v1` (every path gets the list answer of its query). */
  readonly url: string;
  /** The worker's pid: the process that answers (its CPU time is the server's). */
  readonly pid: number;
  stop(): Promise<void>;
}

/** A free TCP port on 127.0.0.1 (nginx cannot be told to pick one). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const a = s.address();
      s.close(() => (a !== null && typeof a === 'object' ? resolve(a.port) : reject(new Error('no port'))));
    });
  });
}

/** A string as an nginx single-quoted value (the bodies hold no quote or backslash of that kind). */
function quoted(s: string): string {
  if (/['\\]/.test(s)) throw new Error(`cannot quote ${JSON.stringify(s)} for nginx`);
  return `'${s}'`;
}

/** `map "$arg_status:$arg_limit" $list_body`: each query the load sends to its body, the whole list otherwise. */
function bodyMap(): string[] {
  const entries: string[] = [];
  for (const status of STATUSES) {
    const q = (limit: number | null) =>
      [...(limit === null ? [] : [`limit=${limit}`]), ...(status === '' ? [] : [`status=${status}`])].join('&');
    entries.push(`    "${status}:" ${quoted(listBody(q(null)).toString())};`);
    for (let limit = 1; limit <= MAX_LIMIT; limit++)
      entries.push(`    "${status}:${limit}" ${quoted(listBody(q(limit)).toString())};`);
  }
  return [
    '  map "$arg_status:$arg_limit" $list_body {',
    `    default ${quoted(listBody('').toString())};`,
    ...entries,
    '  }',
  ];
}

/**
 * `map $msec $ratelimit_reset`: each epoch second of the horizon (`1764180000.*`, a trailing-wildcard name of the
 * `hostnames` map) to the end of its minute, so that Reset moves on each minute as a fixed window's does.
 */
function resetMap(nowS: number): string[] {
  const entries: string[] = [];
  for (let s = nowS - 5; s <= nowS + RESET_HORIZON_S; s++) entries.push(`    ${s}.* ${(Math.floor(s / 60) + 1) * 60};`);
  const last = (Math.floor((nowS + RESET_HORIZON_S) / 60) + 1) * 60;
  return ['  map $msec $ratelimit_reset {', '    hostnames;', `    default ${last};`, ...entries, '  }'];
}

/** The whole nginx.conf of the list server. */
export function nginxListConf(dir: string, port: number, nowS: number): string {
  const limit = BENCH_LIMITS.perMinute;
  return [
    'daemon off;',
    'worker_processes 1;',
    `pid ${join(dir, 'nginx.pid')};`,
    'error_log stderr notice;',
    'events { worker_connections 4096; }',
    'http {',
    '  access_log off;',
    `  client_body_temp_path ${dir}/body;`,
    `  proxy_temp_path ${dir}/proxy;`,
    `  fastcgi_temp_path ${dir}/fastcgi;`,
    `  uwsgi_temp_path ${dir}/uwsgi;`,
    `  scgi_temp_path ${dir}/scgi;`,
    '  server_tokens off;',
    '  keepalive_requests 1000000000;',
    '  keepalive_timeout 60s;',
    '  map_hash_max_size 65536;',
    '  map_hash_bucket_size 128;',
    ...bodyMap(),
    ...resetMap(nowS),
    '  server {',
    `    listen 127.0.0.1:${port} backlog=4096;`,
    '    default_type application/json;',
    '    location / {',
    `      add_header X-RateLimit-Limit ${limit} always;`,
    `      add_header X-RateLimit-Remaining ${limit - 1} always;`,
    '      add_header X-RateLimit-Reset $ratelimit_reset always;',
    '      return 200 $list_body;',
    '    }',
    '  }',
    '}',
  ].join('\n');
}

/** Waits for nginx to log that it started its worker; resolves with the worker's pid. */
function workerPid(child: ChildProcess, output: () => string): Promise<number> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => done(new Error(`nginx did not start within ${START_MS} ms: ${output()}`)), START_MS);
    const done = (e: Error | null, pid?: number) => {
      clearTimeout(timer);
      child.stderr!.off('data', onData);
      child.off('exit', onExit);
      if (e === null) resolve(pid!);
      else {
        child.kill('SIGKILL');
        reject(e);
      }
    };
    const onData = () => {
      const m = /start worker process (\d+)/.exec(output());
      if (m !== null) done(null, Number(m[1]));
    };
    const onExit = (code: number | null) => done(new Error(`nginx exited (${code}) before serving: ${output()}`));
    child.stderr!.on('data', onData);
    child.on('exit', onExit);
  });
}

/** Starts nginx (pinned like every bench server) with the list configuration; resolves once its worker runs. */
export async function startNginxListServer(pin: Pinning): Promise<NginxServer> {
  const bin = programPath('nginx');
  const dir = mkdtempSync(join(tmpdir(), 'petload-bench-nginx-'));
  const port = await freePort();
  const conf = join(dir, 'nginx.conf');
  writeFileSync(conf, nginxListConf(dir, port, Math.floor(Date.now() / 1000)));
  const [cmd, ...args] = [...pin.server, bin, '-p', dir, '-c', conf, '-e', 'stderr'];
  const child = spawn(cmd!, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let out = '';
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (out = (out + d).slice(-8000)));
  let pid: number;
  try {
    pid = await workerPid(child, () => out);
  } catch (e) {
    rmSync(dir, { recursive: true, force: true });
    throw e;
  }
  return {
    url: `http://127.0.0.1:${port}/v1`,
    pid,
    stop: () =>
      new Promise<void>((resolve) => {
        const finish = () => {
          clearTimeout(timer);
          rmSync(dir, { recursive: true, force: true });
          resolve();
        };
        if (child.exitCode !== null || child.signalCode !== null) return finish();
        const timer = setTimeout(() => child.kill('SIGKILL'), STOP_MS);
        child.once('exit', finish);
        child.kill('SIGQUIT');
      }),
  };
}

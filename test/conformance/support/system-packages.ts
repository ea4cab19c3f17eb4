/**
 * Test-only: the Debian programs the conformance corpus runs (redis-server, nginx). When one is missing, the
 * set-up installs its package with apt-get, as src/testing/chromium.ts does for the browser test.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { promisify } from 'node:util';

/** apt-get update + install can take minutes on a fresh machine: use this as the beforeAll timeout. */
export const INSTALL_TIMEOUT_MS = 15 * 60_000;

const PROGRAMS = {
  'redis-server': { path: '/usr/bin/redis-server', pkg: 'redis-server' },
  nginx: { path: '/usr/sbin/nginx', pkg: 'nginx' },
} as const;

export type Program = keyof typeof PROGRAMS;

const run = promisify(execFile);

/** The program's path, installing its Debian package first when it is missing (needs root). */
export async function ensureProgram(program: Program): Promise<string> {
  const { path, pkg } = PROGRAMS[program];
  if (existsSync(path)) return path;
  if (process.getuid?.() !== 0) throw new Error(`${path} is missing and installing it needs root: run \`apt-get install -y ${pkg}\``);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  // Several test files may race to install: apt waits for the other's lock instead of failing. The package's
  // own service is never started here (policy-rc.d is Debian's switch for that in containers without init).
  const lock = ['-o', 'DPkg::Lock::Timeout=600'];
  await run('apt-get', [...lock, 'update'], { env, maxBuffer: 64 * 1024 * 1024 });
  await run('apt-get', [...lock, 'install', '-y', '--no-install-recommends', pkg], { env, maxBuffer: 64 * 1024 * 1024 });
  if (!existsSync(path)) throw new Error(`apt-get installed ${pkg} but ${path} is still missing`);
  return path;
}

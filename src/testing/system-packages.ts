/**
 * Test-only: the Debian programs the tests (and the bench) run for real (a headless browser, Redis, nginx, HAProxy), and the
 * one place that installs them. `installSystemPackages` runs once per `vitest run`, as its global set-up
 * (src/testing/global-setup.ts), before any test worker starts, and at the start of `npm run bench` for the programs
 * it needs (nginx, the throughput rounds' server); tests only ask for a program's path with `programPath`, which
 * never installs.
 *
 * Every apt-get goes through one lock file (flock), so two test runs on one machine never call apt at once, and
 * `apt-get update` runs at most once per set-up, only when something is missing. apt's own locks can still be held
 * by another program (unattended upgrades): the set-up waits for them, bounded.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { promisify } from 'node:util';

/** Each program a test needs, the file it is run from, and its Debian package. A new one: a line here. */
export const SYSTEM_PROGRAMS = {
  chromium: { path: '/usr/bin/chromium', pkg: 'chromium' },
  'redis-server': { path: '/usr/bin/redis-server', pkg: 'redis-server' },
  nginx: { path: '/usr/sbin/nginx', pkg: 'nginx' },
  haproxy: { path: '/usr/sbin/haproxy', pkg: 'haproxy' },
  prometheus: { path: '/usr/bin/prometheus', pkg: 'prometheus' },
  openssl: { path: '/usr/bin/openssl', pkg: 'openssl' },
} as const;

export type SystemProgram = keyof typeof SYSTEM_PROGRAMS;

/** The lock every apt-get of the set-up holds (flock(1), util-linux). */
const LOCK_FILE = '/var/lock/petload-test-apt.lock';
/** How long the set-up waits for apt's own locks held by another program, in all. */
const APT_LOCK_WAIT_MS = 10 * 60_000;
const APT_LOCK_RETRY_MS = 3_000;

const run = promisify(execFile);

/** The program's path; a clear error when it is not installed (the global set-up installs it before any test). */
export function programPath(program: SystemProgram): string {
  const { path, pkg } = SYSTEM_PROGRAMS[program];
  if (!existsSync(path)) {
    throw new Error(
      `${path} is missing: the test set-up (src/testing/global-setup.ts) installs Debian's ${pkg}; run the tests with \`npm test\` or \`npx vitest run\`, or \`apt-get install -y ${pkg}\``,
    );
  }
  return path;
}

/** The packages of the programs that are not installed, in the table's order. */
export function missingPackages(
  programs: readonly SystemProgram[] = Object.keys(SYSTEM_PROGRAMS) as SystemProgram[],
): string[] {
  return programs.filter((p) => !existsSync(SYSTEM_PROGRAMS[p].path)).map((p) => SYSTEM_PROGRAMS[p].pkg);
}

/** The last meaningful line of a failed command's output, for a one-line error. */
function lastLine(e: unknown): string {
  const err = e as { stderr?: string; stdout?: string; message?: string };
  const lines = `${err.stderr ?? ''}\n${err.stdout ?? ''}`
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  return lines.filter((l) => /^(E:|W:)/.test(l)).at(-1) ?? lines.at(-1) ?? err.message ?? String(e);
}

const held = (e: unknown) =>
  /Could not get lock|Unable to acquire the dpkg frontend lock|is another process using it/i.test(lastLine(e));

/** One apt-get under the set-up's lock; waits out apt's own locks held by others (bounded). */
async function aptGet(args: readonly string[], deadline: number): Promise<void> {
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  for (;;) {
    try {
      await run(
        'flock',
        ['-w', String(APT_LOCK_WAIT_MS / 1000), LOCK_FILE, 'apt-get', '-o', 'DPkg::Lock::Timeout=120', ...args],
        { env, maxBuffer: 64 * 1024 * 1024 },
      );
      return;
    } catch (e) {
      if (held(e) && Date.now() + APT_LOCK_RETRY_MS < deadline) {
        await new Promise((r) => setTimeout(r, APT_LOCK_RETRY_MS));
        continue;
      }
      throw new Error(`apt-get ${args[0]} failed: ${lastLine(e)}`);
    }
  }
}

/**
 * Installs every missing package of the table (or of `programs` only: the bench asks for nginx alone), once: under
 * the lock, look again (another run may have installed them meanwhile), then `apt-get update` and one
 * `apt-get install`. Throws one line saying why it cannot.
 */
export async function installSystemPackages(
  log: (line: string) => void = () => {},
  programs: readonly SystemProgram[] = Object.keys(SYSTEM_PROGRAMS) as SystemProgram[],
  who = 'the tests',
): Promise<void> {
  if (missingPackages(programs).length === 0) return;
  if (process.getuid?.() !== 0) {
    throw new Error(
      `${who} ${who.endsWith('s') ? 'need' : 'needs'} Debian's ${missingPackages(programs).join(', ')} and installing them needs root: run \`apt-get install -y ${missingPackages(programs).join(' ')}\``,
    );
  }
  const deadline = Date.now() + APT_LOCK_WAIT_MS;
  log(`petload ${who.replace(/^the /, '')}: installing Debian's ${missingPackages(programs).join(', ')} (once)`);
  await aptGet(['update'], deadline);
  // Another run may have installed them while this one waited for the lock.
  const missing = missingPackages(programs);
  if (missing.length === 0) return;
  // With recommends, as a person would install them (the browser's fonts come that way).
  await aptGet(['install', '-y', ...missing], deadline);
  const still = programs.filter((p) => !existsSync(SYSTEM_PROGRAMS[p].path));
  if (still.length > 0)
    throw new Error(
      `apt-get installed ${missing.join(', ')} but ${still.map((p) => SYSTEM_PROGRAMS[p].path).join(', ')} is still missing`,
    );
}

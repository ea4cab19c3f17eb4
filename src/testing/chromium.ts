/**
 * Test-only: a real headless Chromium (Debian's package) driven by playwright-core. Playwright's own browser
 * download cannot run here, so the set-up installs Debian's `chromium` with apt-get when it is missing.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { promisify } from 'node:util';
import { chromium, type Browser } from 'playwright-core';

export const CHROMIUM_PATH = '/usr/bin/chromium';

/** apt-get update + install can take minutes on a fresh machine: use this as the beforeAll timeout. */
export const CHROMIUM_INSTALL_TIMEOUT_MS = 15 * 60_000;

const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

const run = promisify(execFile);

/** Installs Debian's chromium when /usr/bin/chromium is missing (needs root, as on the project's machines). */
export async function ensureChromium(): Promise<void> {
  if (existsSync(CHROMIUM_PATH)) return;
  if (process.getuid?.() !== 0) {
    throw new Error(`${CHROMIUM_PATH} is missing and installing it needs root: run \`apt-get install -y chromium\``);
  }
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  // Several test files may race to install: apt waits for the other's lock instead of failing.
  const lock = ['-o', 'DPkg::Lock::Timeout=600'];
  await run('apt-get', [...lock, 'update'], { env, maxBuffer: 64 * 1024 * 1024 });
  await run('apt-get', [...lock, 'install', '-y', 'chromium'], { env, maxBuffer: 64 * 1024 * 1024 });
  if (!existsSync(CHROMIUM_PATH)) throw new Error(`apt-get installed chromium but ${CHROMIUM_PATH} is still missing`);
}

export async function launchChromium(): Promise<Browser> {
  await ensureChromium();
  return chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
}

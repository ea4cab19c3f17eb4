/**
 * Test-only: a real headless Chromium (Debian's package) driven by playwright-core. Playwright's own browser
 * download cannot run here; the test set-up installs Debian's `chromium` (src/testing/system-packages.ts).
 */
import { chromium, type Browser } from 'playwright-core';
import { programPath } from './system-packages.js';

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

/** Launching a browser on a busy 2-core machine can take a while: use this as the beforeAll timeout. */
export const CHROMIUM_LAUNCH_TIMEOUT_MS = 120_000;

export async function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: programPath('chromium'), args: CHROMIUM_ARGS });
}

/**
 * Test-only: a real headless Chromium (Debian's package) driven by playwright-core. Playwright's own browser
 * download cannot run here; the test set-up installs Debian's `chromium` (src/testing/system-packages.ts).
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
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

/** A laptop's window: the first screen a reader sees. */
export const VIEWPORT = { width: 1400, height: 900 };

/** Where browser tests leave screenshots for a person to look at. */
export const SCREENSHOTS = fileURLToPath(new URL('../../reports/screenshots/', import.meta.url));

export interface WatchedPage {
  readonly page: Page;
  /** Console errors and page errors, as they come. */
  readonly errors: string[];
  /** Every URL the page requested, as it comes. */
  readonly requests: string[];
}

/** A new page of `browser` that records its console errors, page errors and every request it makes. */
export async function watchedPage(browser: Browser): Promise<WatchedPage> {
  const page = await browser.newPage({ viewport: VIEWPORT });
  const errors: string[] = [];
  const requests: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('request', (r) => requests.push(r.url()));
  return { page, errors, requests };
}

/** A watched page loaded from `file`; its requests other than the file itself. */
export async function openFile(browser: Browser, file: string): Promise<WatchedPage> {
  const watched = await watchedPage(browser);
  const url = pathToFileURL(file).href;
  await watched.page.goto(url, { waitUntil: 'load' });
  return { ...watched, requests: watched.requests.filter((r) => r !== url) };
}

/**
 * A browser for the tests of one file, launched before them, and a scratch directory named by `prefix`; both gone
 * after them. The screenshots' directory is made.
 */
export function useChromium(prefix: string): { readonly browser: () => Browser; readonly dir: () => string } {
  let browser: Browser | undefined;
  let dir: string | undefined;
  beforeAll(async () => {
    browser = await launchChromium();
    dir = await mkdtemp(join(tmpdir(), prefix));
    await mkdir(SCREENSHOTS, { recursive: true });
  }, CHROMIUM_LAUNCH_TIMEOUT_MS);
  afterAll(async () => {
    await browser?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });
  return { browser: () => browser!, dir: () => dir! };
}

export interface ChartPixels {
  id: string;
  canvases: number;
  width: number;
  /** Pixels painted at all. */
  painted: number;
  /** Per series colour (the container's data-colors): opaque pixels of (nearly) that colour. */
  byColour: number[];
}

/** For each `.chart` container of the page: its canvas, how many pixels are painted, and how many have each series' colour. */
export function chartPixels(page: Page): Promise<ChartPixels[]> {
  return page.$$eval('.chart', (els) =>
    els.map((el) => {
      const canvas = el.querySelector('canvas');
      const colours = (JSON.parse(el.getAttribute('data-colors') ?? '[]') as string[]).map((hex) =>
        [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16)),
      );
      const out = {
        id: el.id,
        canvases: el.querySelectorAll('canvas').length,
        width: canvas?.width ?? 0,
        painted: 0,
        byColour: colours.map(() => 0),
      };
      if (!canvas || canvas.width === 0) return out;
      const px = canvas.getContext('2d')!.getImageData(0, 0, canvas.width, canvas.height).data;
      for (let i = 0; i < px.length; i += 4) {
        if (px[i + 3]! === 0) continue;
        out.painted++;
        if (px[i + 3]! < 250) continue;
        colours.forEach((c, k) => {
          if (Math.abs(px[i]! - c[0]!) + Math.abs(px[i + 1]! - c[1]!) + Math.abs(px[i + 2]! - c[2]!) < 24)
            out.byColour[k]!++;
        });
      }
      return out;
    }),
  );
}

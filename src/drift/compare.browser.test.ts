/**
 * compare.html and trend.html in a real headless Chromium (Debian's, via playwright-core): each loads from
 * file:// with no request and no console or page error, and every chart draws its series (the baseline's and the
 * current curve of each operation; p50 and p99 over time; the Limit per plan). Screenshots go to
 * reports/screenshots/ for a person to look at.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Report } from '../report/schema.js';
import { CHROMIUM_LAUNCH_TIMEOUT_MS, launchChromium } from '../testing/chromium.js';
import { sampleReport } from '../testing/sample-report.js';
import { compareReports } from './compare.js';
import { compareHtml } from './html.js';
import { trend } from './trend.js';
import { trendHtml } from './trend-html.js';
import { logNormal, withLatencies } from '../testing/drift-histograms.js';

const SCREENSHOTS = fileURLToPath(new URL('../../reports/screenshots/', import.meta.url));
const VIEWPORT = { width: 1400, height: 900 };

let browser: Browser;
let dir: string;

beforeAll(async () => {
  browser = await launchChromium();
  dir = await mkdtemp(join(tmpdir(), 'petload-compare-html-'));
  await mkdir(SCREENSHOTS, { recursive: true });
}, CHROMIUM_LAUNCH_TIMEOUT_MS);

afterAll(async () => {
  await browser?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

async function open(html: string, name: string): Promise<{ page: Page; errors: string[]; requests: string[] }> {
  const file = join(dir, `${name}.html`);
  await writeFile(file, html);
  const page = await browser.newPage({ viewport: VIEWPORT });
  const errors: string[] = [];
  const requests: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('request', (r) => requests.push(r.url()));
  const url = pathToFileURL(file).href;
  await page.goto(url, { waitUntil: 'load' });
  return { page, errors, requests: requests.filter((r) => r !== url) };
}

/** For each chart: its canvases, and per series colour how many pixels have (nearly) that colour. */
function chartPixels(page: Page): Promise<{ id: string; canvases: number; width: number; byColour: number[] }[]> {
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
        byColour: colours.map(() => 0),
      };
      if (!canvas || canvas.width === 0) return out;
      const px = canvas.getContext('2d')!.getImageData(0, 0, canvas.width, canvas.height).data;
      for (let i = 0; i < px.length; i += 4) {
        if (px[i + 3]! < 250) continue;
        for (const [k, c] of colours.entries())
          if (Math.abs(px[i]! - c[0]!) + Math.abs(px[i + 1]! - c[1]!) + Math.abs(px[i + 2]! - c[2]!) < 24)
            out.byColour[k]!++;
      }
      return out;
    }),
  );
}

const BASE = logNormal(3000, 4000, 0.4, 31);
const run = (micros: readonly number[], startedAt: string, edit: (r: Report) => void = () => {}): Report => {
  const r = withLatencies(sampleReport(), 'listPets', micros);
  r.startedAt = startedAt;
  edit(r);
  return r;
};

describe('compare.html in headless Chromium', () => {
  it('loads with no error and no request, shows the verdict and the drifts first, and draws both curves of every operation', async () => {
    const c = compareReports(
      run(BASE, '2030-01-01T00:00:00.000Z'),
      run(
        BASE.map((v) => v + 60_000),
        '2030-01-02T00:00:00.000Z',
      ),
    );
    const { page, errors, requests } = await open(compareHtml(c), 'compare');
    try {
      expect(errors).toEqual([]);
      expect(requests).toEqual([]);
      expect(await page.textContent('#verdict')).toBe('REGRESSED');
      const top = (s: string) => page.$eval(s, (el) => el.getBoundingClientRect().top);
      expect(await top('#drifts')).toBeLessThan(VIEWPORT.height);
      expect(await top('#drifts')).toBeLessThan(await top('#charts-title'));
      expect(await page.textContent('#drifts tbody tr:first-child')).toContain('listPets p99');
      const charts = await chartPixels(page);
      expect(charts.map((x) => x.id)).toEqual(c.operations.map((_, i) => `chart-op-${i}`));
      for (const x of charts) {
        expect(x.canvases, x.id).toBe(1);
        expect(x.width, x.id).toBeGreaterThan(300);
        expect(x.byColour[1], `${x.id} current`).toBeGreaterThan(50);
      }
      // listPets moved: its baseline curve (dashed, grey) shows apart from the current one; the other operations
      // did not move, and their current curve covers the baseline's.
      expect(charts[0]!.byColour[0], 'listPets baseline').toBeGreaterThan(20);
      await page.screenshot({ path: join(SCREENSHOTS, 'compare.png'), fullPage: true });
    } finally {
      await page.close();
    }
  });
});

describe('trend.html in headless Chromium', () => {
  it('loads with no error and no request, and draws latency and Limit over five runs', async () => {
    const files = [0, 1, 2, 3, 4].map((i) => ({
      path: `runs/${i}/report.json`,
      text: JSON.stringify(
        run(
          BASE.map((v) => v + i * 2000),
          `2030-01-0${i + 1}T00:00:00.000Z`,
        ),
      ),
    }));
    files.push({ path: 'broken/report.json', text: '{' });
    const t = trend(files);
    expect(t.groups[0]!.runs).toHaveLength(5);
    const { page, errors, requests } = await open(trendHtml(t), 'trend');
    try {
      expect(errors).toEqual([]);
      expect(requests).toEqual([]);
      expect(await page.textContent('#skipped')).toContain('broken/report.json');
      expect(await page.$$eval('#verdicts-0 td.cell', (cells) => cells.length)).toBe(5);
      const charts = await chartPixels(page);
      expect(charts.map((x) => x.id)).toEqual(['trend-latency-0', 'trend-limits-0']);
      for (const x of charts) {
        expect(x.canvases, x.id).toBe(1);
        expect(x.byColour[0], x.id).toBeGreaterThan(20);
      }
      await page.screenshot({ path: join(SCREENSHOTS, 'trend.png'), fullPage: true });
    } finally {
      await page.close();
    }
  });
});

/**
 * compare.html and trend.html in a real headless Chromium (Debian's, via playwright-core): each loads from
 * file:// with no request and no console or page error, and every chart draws its series (the baseline's and the
 * current curve of each operation; p50 and p99 over time; the Limit per plan). Screenshots go to
 * reports/screenshots/ for a person to look at.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Report } from '../report/schema.js';
import { chartPixels, openFile, SCREENSHOTS, useChromium, VIEWPORT, type WatchedPage } from '../testing/chromium.js';
import { sampleReport } from '../testing/sample-report.js';
import { compareReports } from './compare.js';
import { compareHtml } from './html.js';
import { trend } from './trend.js';
import { trendHtml } from './trend-html.js';
import { logNormal, withLatencies } from '../testing/drift-histograms.js';

const chrome = useChromium('petload-compare-html-');

async function open(html: string, name: string): Promise<WatchedPage> {
  const file = join(chrome.dir(), `${name}.html`);
  await writeFile(file, html);
  return openFile(chrome.browser(), file);
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

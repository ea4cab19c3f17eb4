/**
 * report.html in a real headless Chromium (Debian's, via playwright-core): it loads from file:// with no
 * network request and no console or page error, every chart draws its series, and a report without data
 * shows messages instead. Screenshots go to reports/screenshots/ for a person to look at.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import type { Report } from '../report/schema.js';
import { verdictOf } from '../report/verdict.js';
import { chartPixels, openFile, SCREENSHOTS, useChromium, VIEWPORT } from '../testing/chromium.js';
import { SAMPLE_COUNTS, sampleReport } from '../testing/sample-report.js';
import { writeReports } from './write.js';

const chrome = useChromium('petload-html-');

interface Opened {
  page: Page;
  errors: string[];
  requests: string[];
  junit: string;
}

async function open(report: Report, name: string): Promise<Opened> {
  const files = await writeReports(report, join(chrome.dir(), name));
  return { ...(await openFile(chrome.browser(), files.html)), junit: await readFile(files.junit, 'utf8') };
}

describe('report.html in headless Chromium', () => {
  it('loads with no error and no request, shows the verdict, and draws every chart', async () => {
    const report = sampleReport();
    const { page, errors, requests } = await open(report, 'sample');
    try {
      expect(errors).toEqual([]);
      expect(requests).toEqual([]);
      expect(await page.textContent('#verdict')).toBe('FAIL');
      expect(await page.textContent('#counts')).toBe(SAMPLE_COUNTS.line);
      const charts = await chartPixels(page);
      expect(charts.map((c) => c.id)).toEqual([
        'chart-latency',
        'chart-rate',
        'chart-status',
        'chart-key-0',
        'chart-key-1',
      ]);
      for (const c of charts) {
        expect(c.canvases, c.id).toBe(1);
        expect(c.width, c.id).toBeGreaterThan(300);
        expect(c.painted, c.id).toBeGreaterThan(1000);
        // The first series of each chart (a latency spectrum, sent/s, 2xx/s, Remaining) is drawn.
        expect(c.byColour[0], c.id).toBeGreaterThan(50);
      }
      // Each 429 is marked: the free key (index 0) ran out of quota, the pro key never did.
      const keyIndex = (plan: string) => report.keyTimelines.findIndex((k) => k.plan === plan);
      const marks = (plan: string) => charts.find((c) => c.id === `chart-key-${keyIndex(plan)}`)!.byColour[2]!;
      expect(marks('free')).toBeGreaterThan(100);
      expect(marks('pro')).toBe(0);
      await page.screenshot({ path: join(SCREENSHOTS, 'report-sample.png'), fullPage: true });
    } finally {
      await page.close();
    }
  });

  it('opens with the verdict, the plan table, the failures and the first row of charts on the first screen; the check table comes after, collapsed', async () => {
    const report = sampleReport();
    const { page, errors } = await open(report, 'first-screen');
    try {
      expect(errors).toEqual([]);
      const top = (selector: string) => page.$eval(selector, (el) => el.getBoundingClientRect().top);
      const bottom = (selector: string) => page.$eval(selector, (el) => el.getBoundingClientRect().bottom);
      expect(await bottom('#verdict')).toBeLessThan(VIEWPORT.height);
      // First under the verdict, whole: each plan's figures, sold against measured.
      expect(await top('#plan-table')).toBeGreaterThan(await bottom('#verdict'));
      expect(await bottom('#plan-table')).toBeLessThan(await top('#failures'));
      expect(await page.$$eval('#plan-table tbody tr', (rows) => rows.length)).toBe(6);
      // The failures: the failed check per plan and the failed threshold, each with its first evidence.
      const failures = await page.$$eval('#failures li', (items) =>
        items.map((li) => li.querySelector('code')!.textContent),
      );
      expect(failures).toEqual(['ratelimit.reset-is-timestamp [free]', 'threshold.rate(429) < 1%', 'auth.challenge']);
      expect(await bottom('#failures')).toBeLessThan(VIEWPORT.height);
      // Every chart starts within the first screen, drawn (a canvas of its full width).
      const charts = await page.$$eval('.chart', (els) =>
        els.map((el) => ({
          id: el.id,
          top: el.getBoundingClientRect().top,
          canvas: el.querySelector('canvas')?.width ?? 0,
        })),
      );
      expect(charts.map((c) => c.id)).toEqual([
        'chart-latency',
        'chart-rate',
        'chart-status',
        'chart-key-0',
        'chart-key-1',
      ]);
      // The first row of charts starts within the first screen, the rest right after it; all drawn (a canvas of
      // their full width).
      const firstRow = charts.filter((c) => c.top === charts[0]!.top);
      expect(firstRow.map((c) => c.id)).toEqual(['chart-latency', 'chart-rate', 'chart-status']);
      for (const c of charts) {
        expect(c.top, c.id).toBeGreaterThan(0);
        if (firstRow.includes(c)) expect(c.top, c.id).toBeLessThan(VIEWPORT.height);
        else expect(c.top, c.id).toBeLessThan(VIEWPORT.height + 400);
        expect(c.canvas, c.id).toBeGreaterThan(300);
      }
      // The long table after the charts, collapsed: its rows take no room until it is opened.
      expect(await top('#checks-section')).toBeGreaterThan(Math.max(...charts.map((c) => c.top)));
      expect(await page.$eval('#checks-section', (d) => (d as unknown as { open: boolean }).open)).toBe(false);
      expect(await page.isVisible('#checks tbody tr')).toBe(false);
      await page.screenshot({ path: join(SCREENSHOTS, 'report-first-screen.png') });
      // The navigation's link opens it.
      await page.click('nav a[href="#checks-section"]');
      // A selector, not a page function: the report's Content-Security-Policy forbids the eval that a polled
      // string expression needs (it failed whenever the first check came too early).
      await page.waitForSelector('#checks-section[open]');
      expect(await page.isVisible('#checks tbody tr')).toBe(true);
    } finally {
      await page.close();
    }
  });

  it('says so when nothing failed, in place of the failures', async () => {
    const r = sampleReport();
    const checks = r.checks.filter((c) => c.status !== 'fail');
    const v = verdictOf(checks);
    const passing: Report = {
      ...r,
      verdict: 'pass',
      exitCode: 0,
      checks,
      thresholds: [],
      summary: { checks: checks.length, passed: v.passed.length, failed: 0, warnings: 0, skipped: v.skipped.length },
    };
    const { page, errors } = await open(passing, 'all-clear');
    try {
      expect(errors).toEqual([]);
      expect(await page.textContent('#failures')).toBe('No check failed and none warned.');
      expect(await page.$eval('#chart-latency', (el) => el.getBoundingClientRect().top)).toBeLessThan(900);
    } finally {
      await page.close();
    }
  });

  it("takes a plan table cell's link to the row of its check: the table opens, and a filter that hid the row lets it be", async () => {
    const { page, errors } = await open(sampleReport(), 'plan-link');
    try {
      // Hide the passing rows first: what counts [pro] held, its row passed.
      await page.click('#checks-section > summary');
      await page.click('[data-filter="fail"]');
      await page.click('#checks-section > summary');
      expect(await page.$eval('#checks-section', (d) => (d as unknown as { open: boolean }).open)).toBe(false);
      // The pro plan's measured cell (its cells: free sold, free measured, pro sold, pro measured).
      const link = '#plan-table tr[data-figure="what counts"] td:nth-of-type(4) a';
      expect(await page.getAttribute(link, 'href')).toBe('#check_ratelimit.what-counts_pro');
      expect(await page.textContent(link)).toBe('held');
      await page.click(link);
      await page.waitForSelector('#checks-section[open]');
      const row = '#checks tr[id="check_ratelimit.what-counts_pro"]';
      expect(await page.isVisible(row)).toBe(true);
      expect(await page.$eval(row, (r) => r.matches(':target'))).toBe(true);
      const box = await page.$eval(row, (r) => r.getBoundingClientRect().top);
      // Within a pixel of the top: layout is sub-pixel, scrolling whole pixels (a row at y.25 scrolls to -0.25).
      expect(box).toBeGreaterThan(-1);
      expect(box).toBeLessThan(VIEWPORT.height);
      expect(await page.$eval(row, (r) => r.querySelector('code')!.textContent)).toBe('ratelimit.what-counts [pro]');
      expect(await page.getAttribute('[data-filter="all"]', 'aria-pressed')).toBe('true');
      await page.screenshot({ path: join(SCREENSHOTS, 'report-plan-link.png') });
      expect(errors).toEqual([]);
    } finally {
      await page.close();
    }
  });

  it('opens the check table at the row a link to report.html#check_... names', async () => {
    const files = await writeReports(sampleReport(), join(chrome.dir(), 'deep-link'));
    const page = await chrome.browser().newPage({ viewport: VIEWPORT });
    try {
      await page.goto(`${pathToFileURL(files.html).href}#check_ratelimit.what-counts_pro`, { waitUntil: 'load' });
      await page.waitForSelector('#checks-section[open]');
      const top = await page.$eval(
        '#checks tr[id="check_ratelimit.what-counts_pro"]',
        (r) => r.getBoundingClientRect().top,
      );
      expect(top).toBeGreaterThan(-1); // within a pixel: sub-pixel layout, whole-pixel scrolling
      expect(top).toBeLessThan(VIEWPORT.height);
    } finally {
      await page.close();
    }
  });

  it('filters the check table by status', async () => {
    const { page, errors } = await open(sampleReport(), 'filter');
    try {
      await page.click('#checks-section > summary');
      await page.click('[data-filter="fail"]');
      const visible = await page.$$eval('#checks tbody tr', (rows) =>
        rows.filter((r) => !r.hasAttribute('hidden')).map((r) => r.querySelector('code')!.textContent),
      );
      expect(visible).toEqual(['ratelimit.reset-is-timestamp [free]', 'threshold.rate(429) < 1%']);
      expect(errors).toEqual([]);
    } finally {
      await page.close();
    }
  });

  it('shows messages instead of charts when there is no data', async () => {
    const r = sampleReport();
    const checks = r.checks.filter((c) => c.status !== 'fail');
    const v = verdictOf(checks);
    const empty: Report = {
      ...r,
      verdict: 'pass',
      exitCode: 0,
      checks,
      summary: { checks: checks.length, passed: v.passed.length, failed: 0, warnings: 0, skipped: v.skipped.length },
      operations: [],
      timeline: { bucketMs: 1000, buckets: [] },
      keyTimelines: [],
      thresholds: [],
      totals: { requests: 0, dropped: 0, transportErrors: 0, statusCounts: {}, rps: 0 },
    };
    const { page, errors, requests } = await open(empty, 'empty');
    try {
      expect(errors).toEqual([]);
      expect(requests).toEqual([]);
      expect(await page.textContent('#verdict')).toBe('PASS');
      expect(await page.$$('.chart')).toHaveLength(0);
      expect(await page.textContent('#chart-latency-empty')).toBe('No latency was recorded in this run.');
      expect(await page.textContent('#chart-rate-empty')).toBe('No traffic timeline was recorded in this run.');
      expect(await page.textContent('#chart-keys-empty')).toBe(
        'No rate-limit headers were recorded per key in this run.',
      );
      await page.screenshot({ path: join(SCREENSHOTS, 'report-empty.png'), fullPage: true });
    } finally {
      await page.close();
    }
  });

  it('runs no script from the report and keeps hostile text as text', async () => {
    const r: Report = structuredClone(sampleReport());
    const evil = '</script><script>window.pwned=1</script><img src=x onerror="window.pwned=2">';
    r.checks[0]!.byPlan[0]!.evidence = [{ message: evil }];
    r.notes = [evil];
    r.keyTimelines[0]!.key = evil;
    const { page, errors, requests } = await open(r, 'hostile');
    try {
      expect(await page.evaluate(() => (globalThis as { pwned?: number }).pwned)).toBeUndefined();
      expect(requests).toEqual([]);
      expect(errors).toEqual([]);
      expect(await page.textContent('main')).toContain(evil);
    } finally {
      await page.close();
    }
  });

  it("writes a junit.xml that the browser's XML parser accepts", async () => {
    const report = sampleReport();
    const { page, junit } = await open(report, 'junit');
    try {
      // A string expression: the test's TypeScript has no DOM types, the page has DOMParser.
      const parsed = (await page.evaluate(
        `(() => { const doc = new DOMParser().parseFromString(${JSON.stringify(junit)}, 'application/xml');
          return { error: doc.querySelector('parsererror')?.textContent ?? null, cases: doc.querySelectorAll('testcase').length }; })()`,
      )) as { error: string | null; cases: number };
      expect(parsed.error).toBeNull();
      expect(parsed.cases).toBe(report.checks.reduce((n, c) => n + c.byPlan.length, 0));
    } finally {
      await page.close();
    }
  });
});

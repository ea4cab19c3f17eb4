import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { loadScenario } from '../config/load-scenario.js';
import { createRunEvents } from '../core/run-events.js';
import { runScenario } from '../engine/run.js';
import { SCREENSHOTS, useChromium, watchedPage } from '../testing/chromium.js';
import { startLivePage } from './live-page.js';
import { relayEvents } from './relay.js';

const chrome = useChromium('petload-live-');

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Poll `read` every 100 ms until `ok` holds, for at most `ms`; the last value either way. */
async function until<T>(read: () => Promise<T>, ok: (v: T) => boolean, ms: number): Promise<T> {
  const deadline = Date.now() + ms;
  let v = await read();
  while (!ok(v) && Date.now() < deadline) {
    await sleep(100);
    v = await read();
  }
  return v;
}

const sentOn = async (page: Page) => Number(await page.textContent('#sent'));

describe('the live page in headless Chromium', () => {
  it('follows a real run, then says it ended and links to report.html; no error, no outside request', {
    timeout: 120_000,
  }, async () => {
    // The page's server listens before the run starts; the run's events reach it through a relay.
    const relay = createRunEvents();
    const live = await startLivePage(relay);
    const origin = new URL(live.url).origin;
    const { page, errors, requests } = await watchedPage(chrome.browser());
    const other = await watchedPage(chrome.browser());
    try {
      // The pages are open and following before the run sends anything.
      await page.goto(live.url, { waitUntil: 'load' });
      await other.page.goto(live.url, { waitUntil: 'load' });
      await page.waitForSelector('#main[data-updates]', { timeout: 10_000 });
      expect(await page.textContent('#run-state')).toBe('STARTING');
      const run = runScenario({
        scenario: loadScenario('smoke'),
        target: { kind: 'embedded', timeScale: 10 },
        reportDir: join(chrome.dir(), 'smoke'),
        subscribe: (events) => {
          relayEvents(events, relay);
        },
      });
      // A page closed while the run goes on changes nothing for the run.
      await other.page.close();

      // The figures change while the run goes on: the sent count rises between two reads, before the end.
      const first = await until(
        () => sentOn(page),
        (n) => n > 0,
        30_000,
      );
      expect(first).toBeGreaterThan(0);
      expect(await page.isHidden('#end-notice')).toBe(true);
      const second = await until(
        () => sentOn(page),
        (n) => n > first,
        10_000,
      );
      expect(second).toBeGreaterThan(first);
      expect(await page.textContent('#run-state')).toMatch(/^(PROBES|LOAD)$/);
      await until(
        () => page.$$eval('#latency tbody tr', (rs) => rs.length),
        (n) => n > 0,
        10_000,
      );
      expect(await page.$$eval('#keys tbody tr', (rs) => rs.length)).toBe(3);
      expect(await page.$$eval('#probes tbody tr', (rs) => rs.length)).toBeGreaterThan(0);
      await page.waitForSelector('#chart-traffic canvas', { timeout: 10_000 });
      await page.screenshot({ path: join(SCREENSHOTS, 'live-page-running.png'), fullPage: true });

      const result = await run;
      expect(result.report.abortReason ?? '', result.report.notes.join('\n')).toBe('');
      expect(result.report.verdict).toBe('pass');
      // The end: the notice, the verdict, the file path as text, and a link to the report the server serves.
      await page.waitForSelector('#end-notice:not([hidden])', { timeout: 10_000 });
      expect(await page.textContent('#run-state')).toBe('PASS');
      expect(await page.textContent('#end-text')).toBe('The run has ended: PASS, exit code 0.');
      expect(await page.textContent('#report-file')).toBe(result.files!.html);
      expect(await sentOn(page)).toBe(result.report.totals.requests);
      expect(await page.textContent('#counts')).toBe(
        `0 failed, 0 warned, ${result.report.summary.passed} passed, ${result.report.summary.skipped} skipped`,
      );
      await page.screenshot({ path: join(SCREENSHOTS, 'live-page-ended.png'), fullPage: true });
      const href = await page.$eval('#report-link', (a) => (a as unknown as { href: string }).href);
      expect(href).toBe(`${live.url}report.html`);
      await page.click('#report-link');
      await page.waitForSelector('#verdict');
      expect(await page.textContent('#verdict')).toBe('PASS');

      expect(errors).toEqual([]);
      expect(requests.length).toBeGreaterThan(2);
      expect(requests.filter((u) => new URL(u).origin !== origin)).toEqual([]);
      expect(other.errors).toEqual([]);
    } finally {
      await page.close();
      await live.close();
    }
  });

  it('answers 403 to any request without the token, and stops when closed', async () => {
    const live = await startLivePage(createRunEvents());
    const { origin, pathname } = new URL(live.url);
    const token = pathname.slice(1, -1);
    expect(token).toMatch(/^[0-9a-f]{32}$/);
    try {
      for (const path of [
        '/',
        '/events',
        '/report.html',
        `/${'0'.repeat(32)}/`,
        `/${token.slice(1)}/`,
        `/${token}x/`,
      ]) {
        expect((await fetch(`${origin}${path}`)).status, path).toBe(403);
      }
      const ok = await fetch(live.url);
      expect(ok.status).toBe(200);
      expect(ok.headers.get('content-security-policy')).toContain("default-src 'none'");
      // Before the run has ended there is no report to serve.
      expect((await fetch(`${live.url}report.html`)).status).toBe(404);
    } finally {
      await live.close();
    }
    await expect(fetch(live.url)).rejects.toThrow();
  });
});

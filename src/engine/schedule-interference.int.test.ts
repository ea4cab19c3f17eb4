/**
 * A quota refused mid-schedule for reasons of its own: another client spends the same key on a real loopback
 * reference server (a scaled clock, so that the windows pass in seconds). Where the answers show it, the affected
 * probe re-plans or skips naming what happened; the target is never failed for it. (Where nothing shows another
 * client, a refusal after the promised wait is the target's failure: src/probes/wait-out.int.test.ts.)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { PlanName } from '../api/plans.js';
import { parseKeys } from '../config/keys-file.js';
import { parseScenarioText } from '../config/load-scenario.js';
import { createReferenceServer, type ReferenceServer } from '../reference-server/index.js';
import { call } from '../reference-server/test-client.js';
import { runScenario } from './run.js';

const SCALE = 20; // a minute window lasts 3 real seconds
const scenario = parseScenarioText(
  'name: t\ndescription: t\nprobes: [enforce, retry-after-honest, restore]\n',
  't.yaml',
);

let server: ReferenceServer | null = null;
const dirs: string[] = [];
afterEach(async () => {
  await server?.close();
  server = null;
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

async function start(): Promise<ReferenceServer> {
  // No ban: the other client's knocks must not get the key banned (that is another test's subject).
  server = await createReferenceServer({ port: 0, timeScale: SCALE, banThreshold: 1_000_000 });
  return server;
}

async function run(s: ReferenceServer, plans: PlanName[], log: (line: string) => void) {
  const dir = mkdtempSync(join(tmpdir(), 'petload-interference-'));
  dirs.push(dir);
  const keys = s.keys.filter((k) => plans.includes(k.plan));
  return runScenario({
    scenario,
    target: { kind: 'external', url: s.url, keys, clock: s.clock },
    plans,
    reportDir: dir,
    log,
  });
}

const checkOf = (r: Awaited<ReturnType<typeof run>>, id: string) => r.report.checks.find((c) => c.id === id)!;

describe('another client spends the same key', () => {
  it('before the run: enforce finds the window already open and partly spent, and starts again on a fresh one', {
    timeout: 60_000,
  }, async () => {
    const s = await start();
    const key = s.keys.find((k) => k.plan === 'free')!;
    for (let i = 0; i < 20; i++) expect((await call(s.url, '/pets?limit=1', { auth: key })).status).toBe(200);
    const lines: string[] = [];
    const r = await run(s, ['free'], (l) => lines.push(l));
    expect(
      lines.some((l) =>
        /enforce \[free\]: .*already open and partly spent.*another client.*again on a fresh window/.test(l),
      ),
    ).toBe(true);
    expect(checkOf(r, 'ratelimit.enforced').status).toBe('pass');
    expect(checkOf(r, 'ratelimit.remaining-decrements').status).not.toBe('fail');
    expect(r.report.checks.filter((c) => c.status === 'fail').map((c) => c.id)).toEqual([]);
    expect(r.report.verdict).toBe('pass');
  });

  it('during the wait for a 429: the next window is spent before petload comes back, and part of the one after, which Remaining shows: the waits skip naming it', {
    timeout: 60_000,
  }, async () => {
    // A key with a small quota on a slower clock: the other client spends a whole window within a few real ms of
    // its start, well before petload's Retry-After + 250 ms (25 real ms at least) has passed.
    const [key] = parseKeys(
      { keys: [{ key: 'pl-interference-0123456789abcdef', plan: 'enterprise', perMinute: 5, perDay: 100_000 }] },
      'test',
    );
    server = await createReferenceServer({ port: 0, timeScale: 10, banThreshold: 1_000_000, keys: [key!] });
    const s = server;
    let spend: Promise<void> | null = null;
    // As soon as petload has its 429, four workers knock without pause from just before the window turns, then take
    // all of it, and two requests of the window after it (the answer petload gets there shows them). A refused
    // worker sleeps until 100 real ms before the Reset it was given: knocking through a whole window (6 real
    // seconds) ran out of its tries before the window turned on a quiet machine, and petload then saw no other client.
    const other = async () => {
      let accepted = 0;
      const worker = (upTo: number) => async () => {
        for (let i = 0; i < 5000 && accepted < upTo; i++) {
          const reply = await call(s.url, '/pets?limit=1', { auth: key! });
          if (reply.status === 200) accepted++;
          const turnsIn = Number(reply.headers.get('x-ratelimit-reset')) * 1000 - s.clock.now();
          if (reply.status === 429 && accepted < upTo && turnsIn > 1000) await s.clock.sleep(turnsIn - 1000);
        }
      };
      const take = worker(5);
      await Promise.all([take(), take(), take(), take()]);
      // One worker alone, so that exactly two of the window after it are taken.
      await worker(5 + 2)();
    };
    const r = await run(s, ['enterprise'], (l) => {
      if (spend === null && /^probe enforce \[enterprise\] done/.test(l)) spend = other();
    });
    await spend;
    expect(spend).not.toBeNull();
    // The probe waits again for the window the other client spent, and the answer there shows a Remaining lower
    // than petload's own requests explain: it skips naming the other client; it never fails the target for it.
    const honest = checkOf(r, 'retry-after.honest');
    expect(['pass', 'skip']).toContain(honest.status);
    if (honest.status === 'skip')
      expect(honest.byPlan.flatMap((p) => p.reasons).join(' ')).toMatch(
        /the next window's answer shows Remaining \d of 5, where petload's 2 requests on the key since explain 3: another client is using the key/,
      );
    expect(checkOf(r, 'ratelimit.quota-restored').status).not.toBe('fail');
    expect(checkOf(r, 'ratelimit.enforced').status).toBe('pass');
    expect(r.report.checks.filter((c) => c.status === 'fail').map((c) => c.id)).toEqual([]);
  });
});

/**
 * The ban probe alone, each of its decisions taken by a scripted loopback target (src/testing/probe-harness.ts;
 * the reference server's ban rule over a whole run: ban.int.test.ts): a ban measured and followed to its end, a ban
 * that does not end within the bound, no ban among the knocks, a Retry-After too short to knock in, and a key that
 * cannot be brought to a 429 (never refused, or too slow to spend its window).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import {
  type Answer,
  figuresKey,
  fixedWindow,
  type Received,
  runProbeAlone,
  type Script,
} from '../testing/probe-harness.js';

const ID = 'ban.probe' as const;
const key = figuresKey('free', 1, { perMinute: 3, perDay: 1000 }, { sacrificial: true });
const ban = (script: Script, scale = 60) => runProbeAlone({ probe: 'ban', keys: [key], script, scale });

/**
 * A fixed window that bans the key after `tolerated` knocks inside a refusal: 403 `key_banned` with Retry-After
 * `banS` for `banS` seconds of the run clock (`forever`: never lifted).
 */
function banning(tolerated: number, banS: number, forever = false): Script {
  const limiter = fixedWindow([key]);
  let knocks = 0;
  let bannedUntil = 0;
  return (r: Received): Answer => {
    if (r.at < bannedUntil || (forever && bannedUntil > 0)) {
      const headers = { 'Retry-After': String(Math.max(1, Math.ceil((bannedUntil - r.at) / 1000))) };
      return { status: 403, headers, body: { code: 'key_banned', message: 'banned', status: 403 } };
    }
    // Once the ban is over, the key is accepted again (each request on a fresh window).
    if (bannedUntil > 0 && !forever) limiter.windows.delete(key.secret);
    const a = limiter(r);
    if (a.status === 429 && ++knocks > tolerated + 1 && bannedUntil === 0) {
      bannedUntil = r.at + banS * 1000;
      return banning403(banS);
    }
    return a;
  };
}
const banning403 = (banS: number): Answer => ({
  status: 403,
  headers: { 'Retry-After': String(banS) },
  body: { code: 'key_banned', message: 'banned', status: 403 },
});

describe('ban probe, alone against a scripted target', () => {
  it('a ban after five knocks, for ten seconds: measured, followed to its end, and the key accepted again', async () => {
    // A clock 10 times faster: a second of the ban is 100 real ms, more than a busy machine's stall.
    const run = await ban(banning(5, 10), 10);
    expect(run.status(ID)).toEqual({ status: 'pass', text: '' });
    const info = run.outcome(ID)!.info;
    expect(info).toMatchObject({ banThreshold: 5, banStatus: 403, banCode: 'key_banned', banEnded: true });
    // Within the uncertainty the probe states (plus Date's rounding), and that under a quarter of the ban.
    const u = info.banDurationUncertaintySeconds as number;
    expect(Math.abs((info.banDurationSeconds as number) - 10)).toBeLessThanOrEqual(u + 1);
    expect(u).toBeLessThan(10 / 4);
    expect(info.recovered).toBe(true);
    expect(run.notes.join('\n')).toContain(
      'free: banned after 6 knocks inside Retry-After (status 403, code key_banned)',
    );
  });

  it('a ban that is never lifted: skipped once the polls are spent, the key suspected banned', async () => {
    const run = await ban(banning(2, 1, true));
    expect(run.status(ID).status).toBe('skip');
    expect(run.status(ID).text).toMatch(
      /^the ban \(status 403, code key_banned\) did not end within the bound \(60 requests/,
    );
    expect(run.outcome(ID)?.info.banEnded).toBe(false);
  });

  it('knocks all answered like the refusal: skipped, no change within the bound', async () => {
    const run = await ban(fixedWindow([key]));
    expect(run.status(ID).status).toBe('skip');
    expect(run.status(ID).text).toMatch(/^no change within the bound: \d+ knocks inside 3 Retry-After wait\(s\)/);
    expect(run.notes.join('\n')).toMatch(/free: no ban seen after \d+ knocks inside 3 Retry-After wait\(s\)\./);
  });

  it('a Retry-After of one second: skipped, no knock sent, with the time-scale advice', async () => {
    const run = await ban(fixedWindow([key], { retryAfter: () => 1 }));
    expect(run.status(ID).status).toBe('skip');
    expect(run.status(ID).text).toContain('sent no knock: in 3 refusal(s) the Retry-After left too little time');
    expect(run.status(ID).text).toContain('a smaller --time-scale');
  });

  it('never refused: skipped, the key could not be brought to a 429, naming ratelimit.enforced', async () => {
    const run = await ban(fixedWindow([key], { limit: () => 1000, announced: () => 3 }));
    expect(run.status(ID)).toEqual({
      status: 'skip',
      text: 'the key could not be brought to a 429 in 3 attempt(s) (see ratelimit.enforced)',
    });
  });

  it('a window that ends before its quota is spent: skipped, the windows ended first, with the time-scale advice', async () => {
    const limiter = fixedWindow([key], { limit: () => 1000, announced: () => 3 });
    // Never refused, and the first answer of each attempt (3 + 1 + 8 requests) takes 66 s of the run clock.
    const run = await ban(async (r) => {
      if (r.n % 12 === 1) await sleep(1100);
      return limiter(r);
    });
    expect(run.status(ID).status).toBe('skip');
    expect(run.status(ID).text).toMatch(
      /^the key could not be brought to a 429 in 3 attempt\(s\): 3 window\(s\) ended/,
    );
    expect(run.status(ID).text).toContain('a smaller --time-scale');
  });

  it('without a key marked sacrificial: skipped, opt-in', async () => {
    const plain = figuresKey('free', 1, { perMinute: 3, perDay: 1000 });
    const run = await runProbeAlone({ probe: 'ban', keys: [plain], script: fixedWindow([plain]) });
    expect(run.status(ID).status).toBe('skip');
    expect(run.status(ID).text).toContain('sacrificial');
    expect(run.received).toHaveLength(0);
  });
});

import { describe, expect, it } from 'vitest';
import { Ledger } from '../checks/ledger.js';
import { createClock } from '../core/clock.js';
import { buildExchange, countsOf, outcomeOf, type ExchangeParts } from '../testing/exchange-builder.js';
import { boundProbe, ProbeEnded, probeTimeBoundMs } from './probe-bounds.js';

const at = (sent: number, parts: ExchangeParts = {}) => buildExchange({ timing: { sent, done: sent + 10 }, ...parts });
const refused = (sent: number, parts: ExchangeParts = {}) => at(sent, { status: 429, ...parts });

function bound(probe: 'list' | 'ban' = 'list', timeBoundMs = 60_000) {
  const ledger = new Ledger();
  const b = boundProbe(probe, { clock: createClock(1), ledger, signal: new AbortController().signal, timeBoundMs });
  return { b, ledger, send: (ex: ReturnType<typeof at>) => b.send(async () => ex) };
}

describe('a probe bound', () => {
  it('ends a probe after 3 failures in a row: its waits end, its next send throws, later verdicts become skips', async () => {
    const { b, ledger, send } = bound();
    await send(refused(0));
    await send(at(100, { status: 503 }));
    expect(b.ended()).toBeNull();
    await send(at(200, { status: null, error: { kind: 'timeout', message: 'timed out' } }));
    expect(b.ended()).toBe(
      '3 requests in a row were refused (429) or got a server error or got no answer; the last GET /pets -> no answer (timeout)',
    );
    expect(b.signal.aborted).toBe(true);
    await expect(send(at(300))).rejects.toBeInstanceOf(ProbeEnded);
    b.ledger.fail('list.schema', 'free', 'judged on a sequence cut short');
    b.ledger.pass('list.limit-respected', 'free');
    expect(countsOf(ledger, 'list.schema')).toEqual({ passed: 0, failed: 0, skipped: 1 });
    expect(outcomeOf(ledger, 'list.schema')?.skipReasons[0]).toMatch(/^not judged: the probe ended early \(3 requests/);
    expect(countsOf(ledger, 'list.limit-respected').passed).toBe(0);
    b.dispose();
  });

  it('counts a herd in flight together as one failure, and an answer sent after the last failure ends the streak', async () => {
    const { b, send } = bound();
    // Eight sent together at 0, all refused: one failure.
    for (let i = 0; i < 8; i++) await send(refused(i));
    await send(refused(100));
    await send(at(200));
    await send(refused(300));
    await send(refused(400));
    expect(b.ended()).toBeNull();
    b.dispose();
  });

  it('counts no knock, and no refusal for the ban probe', async () => {
    const { b, send } = bound('ban');
    for (let i = 0; i < 5; i++) await send(refused(i * 100));
    for (let i = 5; i < 10; i++) await send(refused(i * 100, { intent: 'knock', status: 503 }));
    expect(b.ended()).toBeNull();
    b.dispose();
  });

  it('ends a probe at its own time bound', async () => {
    const { b } = bound('list', 20);
    await new Promise((r) => setTimeout(r, 60));
    expect(b.ended()).toBe('its own time bound passed: 0 s of real time');
    expect(b.signal.aborted).toBe(true);
  });

  it('gives a probe twice its planned length and two minute windows, never less than a minute of real time', () => {
    expect(probeTimeBoundMs(30_000, 0, 1)).toBe(180_000);
    expect(probeTimeBoundMs(30_000, 3_600_000, 1)).toBe(3_780_000);
    expect(probeTimeBoundMs(30_000, 0, 60)).toBe(60_000);
  });
});

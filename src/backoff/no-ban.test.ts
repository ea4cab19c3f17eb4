import { describe, expect, it } from 'vitest';
import { Ledger } from '../checks/ledger.js';
import type { ApiKey } from '../core/api-key.js';
import { buildExchange, FIXED_NOW, outcomeOf, rateLimitHeaders } from '../testing/exchange-builder.js';
import { judgeNoBan, throughputFloor, type PlanPhaseRecord } from './no-ban.js';
import { readWindow } from './response.js';
import { testKey } from '../testing/exchange-builder.js';
import { AcceptedWindows } from './windows.js';

const key = (n: number): ApiKey => testKey('free', n, `000${n}`);
const keys = [key(1), key(2)];

function record(parts: Partial<PlanPhaseRecord> = {}): PlanPhaseRecord {
  return {
    plan: 'free',
    keys,
    windows: new AcceptedWindows(),
    bans: [],
    accepted: 0,
    refused: 0,
    heldBack: 0,
    dayQuotaSpent: false,
    ...parts,
  };
}

const PHASE = 'phase 1 (constant-rate)';
// Four minutes offered above the limit of two Free keys: 480 requests let through.
const over = { exceededLimit: true, withinLimit: 480 } as const;

describe('judgeNoBan', () => {
  it('expects 80% of what the limit lets through, less one window', () => {
    expect(throughputFloor(480, keys)).toBeCloseTo(0.8 * (480 - 120), 9);
    expect(throughputFloor(100, keys)).toBe(0);
  });

  it('passes a phase with no ban, no window over the limit and throughput near the limit', () => {
    const ledger = new Ledger();
    judgeNoBan(ledger, record({ accepted: 470, refused: 4, heldBack: 200 }), over, PHASE);
    const o = outcomeOf(ledger, 'backoff.no-ban');
    expect(o).toMatchObject({ passed: 1, failed: 0 });
    expect(o!.info[PHASE]).toMatchObject({ accepted: 470, refused: 4, heldBack: 200, suspectedBans: [] });
    expect((o!.info[PHASE] as { throughput: string }).throughput).toBe(
      '470 accepted, at least 288 expected (80% of the 480 the limit lets through, less one window)',
    );
  });

  it('fails a suspected ban, with the refusal as evidence', () => {
    const ledger = new Ledger();
    const refusal = buildExchange({ status: 429, headers: { 'retry-after': '900' } });
    judgeNoBan(ledger, record({ accepted: 470, bans: [{ key: keys[1]!, refusal }] }), over, PHASE);
    const o = outcomeOf(ledger, 'backoff.no-ban')!;
    expect(o).toMatchObject({ passed: 0, failed: 1 });
    expect(o.evidence[0]!.message).toBe(
      `${PHASE}: key ${keys[1]!.label} suspected banned: still refused (429) after the Retry-After and Reset of its first refusal had passed`,
    );
    expect(o.evidence[0]!.status).toBe(429);
  });

  it('fails a window that accepted more than the limit', () => {
    const ledger = new Ledger();
    const windows = new AcceptedWindows();
    for (let i = 0; i < 61; i++) {
      const ex = buildExchange({ headers: rateLimitHeaders(60, 0, FIXED_NOW / 1000 + 30) });
      windows.note(keys[0]!, FIXED_NOW, ex, readWindow(ex, keys[0]!));
    }
    judgeNoBan(ledger, record({ accepted: 470, windows }), over, PHASE);
    const o = outcomeOf(ledger, 'backoff.no-ban')!;
    expect(o.failed).toBe(1);
    expect(o.evidence[0]!.message).toContain('had 61 requests accepted in the minute window with Reset');
  });

  it('fails throughput far below the limit', () => {
    const ledger = new Ledger();
    judgeNoBan(ledger, record({ accepted: 200 }), over, PHASE);
    expect(outcomeOf(ledger, 'backoff.no-ban')!.evidence[0]!.message).toBe(
      `${PHASE}: throughput fell below the limit: 200 accepted, at least 288 expected (80% of the 480 the limit lets through, less one window)`,
    );
  });

  it('does not judge throughput when the offered traffic stayed under the limit, or the day quota ran out', () => {
    for (const [parts, offered, why] of [
      [{}, { exceededLimit: false }, 'never exceeded the limit'],
      [{ dayQuotaSpent: true }, over, 'day quota ran out'],
    ] as const) {
      const ledger = new Ledger();
      judgeNoBan(ledger, record({ accepted: 10, ...parts }), offered, PHASE);
      const o = outcomeOf(ledger, 'backoff.no-ban')!;
      expect(o).toMatchObject({ passed: 1, failed: 0 });
      expect((o.info[PHASE] as { throughput: string }).throughput).toContain(why);
    }
  });
});

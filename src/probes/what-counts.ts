/**
 * The what-counts probe: 200, 400, 404, 200 again and a 200 of GET /store/orders on one key, and which of them the
 * target counts against the quota (ratelimit.what-counts, a fact for the report).
 */
import { OPERATIONS } from '../api/operations.js';
import type { ApiKey } from '../core/api-key.js';
import type { Exchange, RequestSpec } from '../http/exchange.js';
import { cheapList, keySpec, othersSince, probeTag, type ProbeContext } from './context.js';
import type { Probe } from './probe.js';
import { FOREIGN } from './reasons.js';
import { sameWindow, tripleOf } from './window.js';
import { withRoomyKey } from './with-key.js';

/** The fact of GET /store/orders' 200 (the interface's every-endpoint rules hold there: it should count). */
const ORDERS = 'GET /store/orders';

/** What a step of the what-counts sequence showed: its status's quota use, or why it could not be told. */
type CountFact = { label: string; fact: string; ambiguous: boolean };

/**
 * The what-counts sequence once: 200, 400, 404, 200, GET /store/orders on one key, each step's fall of Remaining read against the one
 * before. A fall that other probes' requests in flight meanwhile could explain is ambiguous (on a target whose keys
 * share a counter they show here; that is key-isolation's to judge).
 */
async function countOnce(ctx: ProbeContext, key: ApiKey, tag: string): Promise<CountFact[]> {
  // Each step: its fact's label, the request, and the status it is measured on.
  const plan: [string, () => RequestSpec, number][] = [
    ['200', () => cheapList(key, tag), 200],
    ['400', () => keySpec(key, 'createPet', '/pets', tag, '{"categoryId":"not-an-int"}'), 400],
    ['404', () => keySpec(key, 'getPet', '/pets/9223372036854775807', tag), 404],
    ['200', () => cheapList(key, tag), 200],
    [ORDERS, () => keySpec(key, 'listOrders', OPERATIONS.listOrders.path, tag), 200],
  ];
  const facts: CountFact[] = [];
  let prev: Exchange | null = null;
  for (const [label, spec, status] of plan) {
    const others = othersSince(ctx);
    const ex = await ctx.send(spec());
    const p = prev;
    prev = ex;
    if (p === null || label === '200') continue;
    if (ex.status !== status) {
      facts.push({
        label,
        fact: `not measured: the probe got ${ex.status ?? 'no response'} instead`,
        ambiguous: false,
      });
      continue;
    }
    const [tp, tc] = [tripleOf(p), tripleOf(ex)];
    if (!sameWindow(tp, tc)) {
      facts.push({ label, fact: 'not measured: no usable headers in one window', ambiguous: false });
      continue;
    }
    const fall = tp!.remaining - tc!.remaining;
    facts.push({ label, fact: fall >= 1 ? 'counted' : 'not counted', ambiguous: fall >= 1 && fall <= others() });
  }
  return facts;
}

export const whatCountsProbe: Probe = {
  name: 'what-counts',
  checks: ['ratelimit.what-counts'],
  // 200, 400, 404, 200, GET /store/orders.
  needs: { sends: 'alone', window: 'headroom', slot: 2, requests: 5 },
  perPlan: true,
  async run(ctx, plan) {
    await withRoomyKey(ctx, this.checks, plan, async (fk, plan) => {
      const id = 'ratelimit.what-counts';
      const tag = probeTag('what-counts');
      let counted = await countOnce(ctx, fk.key, tag);
      // Once more when other probes' requests may have landed inside a step; what is still ambiguous is said so.
      if (counted.some((f) => f.ambiguous)) counted = await countOnce(ctx, fk.key, tag);
      const facts: Record<string, string> = {
        '401': 'never charged to a key (requests without a valid key carry no key); see auth.no-quota-drain',
        '429': 'not measured: it would need a request inside a Retry-After, which petload never sends',
      };
      for (const f of counted) {
        facts[f.label] ??= f.ambiguous
          ? `not measured: other probes had requests out meanwhile, and ${FOREIGN}`
          : f.fact;
      }
      for (const [k, v] of Object.entries(facts)) ctx.ledger.info(id, plan, k, v);
      ctx.ledger.pass(id, plan);
      ctx.note(
        `${plan}: quota use by status: ${Object.entries(facts)
          .map(([k, v]) => `${k} ${v.split(':')[0]}`)
          .join(', ')}.`,
      );
    });
  },
};

/**
 * The unknown-id probe: GET of ids never created, each to be answered 404 (get.unknown-404), and of a malformed id
 * (judged passively).
 */
import { isRateLimitRefusal } from '../checks/passive/contract.js';
import { keySpec, probeTag, sendPatiently } from './context.js';
import { petsIn } from './pets.js';
import type { Probe } from './probe.js';
import { HEADROOM_SLOT, withKey } from './with-key.js';
import { NO_WHOLE_RESPONSE } from './reasons.js';

export const unknownIdProbe: Probe = {
  name: 'unknown-id',
  checks: ['get.unknown-404'],
  perPlan: true,
  // A list, two ids never created, a malformed id.
  needs: { sends: 'shared', window: 'headroom', slot: HEADROOM_SLOT, requests: 4 },
  async run(ctx, plan) {
    await withKey(ctx, this, plan, async (key) => {
      const tag = probeTag('unknown-id');
      const ids = petsIn(await sendPatiently(ctx, keySpec(key, 'listPets', '/pets?limit=100', tag))).map((p) =>
        BigInt(p.id),
      );
      const max = largest(ids);
      // Far above any id seen, but a safe integer; and the largest int64.
      const unknown = [String(max + 1_000_003n < 2n ** 53n ? max + 1_000_003n : 2n ** 53n - 7n), '9223372036854775807'];
      for (const id of unknown) {
        const ex = await sendPatiently(ctx, keySpec(key, 'getPet', `/pets/${id}`, tag));
        if (isRateLimitRefusal(ex) || ex.error !== null) {
          ctx.ledger.skip(
            'get.unknown-404',
            plan,
            ex.error ? NO_WHOLE_RESPONSE : 'refused by the rate limit, not judged',
          );
          continue;
        }
        ctx.ledger.judge(
          'get.unknown-404',
          plan,
          ex.status === 404,
          () => `GET /pets/${id} (never created): expected 404, got ${ex.status ?? 'no response'}`,
          ex,
        );
      }
      // A malformed id: 400 or 404 are both documented for it (judged by contract.documented-status).
      await sendPatiently(ctx, keySpec(key, 'getPet', '/pets/not-a-number', tag));
    });
  },
};

/** The largest of the ids, or 0 (a loop: Math.max takes no bigint). */
function largest(ids: readonly bigint[]): bigint {
  let max = 0n;
  for (const id of ids) if (id > max) max = id;
  return max;
}

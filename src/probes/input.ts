/**
 * The input probe: invalid NewPet bodies, each to be refused with a 400, and then the lists, where no animal may
 * have been created from them (create.rejects-invalid).
 */
import { isRateLimitRefusal } from '../checks/passive/contract.js';
import { keySpec, probeTag, sendPatiently } from './context.js';
import { nonce, petsIn } from './pets.js';
import type { Probe } from './probe.js';
import { HEADROOM_SLOT, withKey } from './with-key.js';
import { prefixed } from '../checks/skip-reason.js';
import { NO_WHOLE_RESPONSE } from './reasons.js';

/** Invalid NewPet bodies, raw text so that malformed JSON and integers beyond int64 are sent as such. */
export const INVALID_BODIES: { what: string; body: (name: string) => string }[] = [
  { what: 'missing name', body: () => '{"categoryId":1}' },
  { what: 'missing categoryId', body: (n) => JSON.stringify({ name: n }) },
  { what: 'categoryId as string', body: (n) => JSON.stringify({ name: n, categoryId: '1' }) },
  { what: 'categoryId as 1.5', body: (n) => `{"name":${JSON.stringify(n)},"categoryId":1.5}` },
  { what: 'categoryId beyond int64', body: (n) => `{"name":${JSON.stringify(n)},"categoryId":9223372036854775808}` },
  { what: 'name as number', body: () => '{"name":42,"categoryId":1}' },
  { what: 'status "foo"', body: (n) => JSON.stringify({ name: n, categoryId: 1, status: 'foo' }) },
  { what: 'malformed JSON', body: (n) => `{"name":${JSON.stringify(n)},"categoryId":` },
  { what: 'empty body', body: () => '' },
  { what: 'a JSON array', body: (n) => JSON.stringify([{ name: n, categoryId: 1 }]) },
];

/** The lists the input probe reads, looking for an animal an invalid body created. */
const LEAK_QUERIES = [
  '?limit=100',
  '?limit=100&status=available',
  '?limit=100&status=pending',
  '?limit=100&status=sold',
];

export const inputProbe: Probe = {
  name: 'input',
  checks: ['create.rejects-invalid'],
  perPlan: true,
  needs: {
    sends: 'shared',
    window: 'headroom',
    slot: HEADROOM_SLOT,
    requests: INVALID_BODIES.length + LEAK_QUERIES.length,
  },
  async run(ctx, plan) {
    await withKey(ctx, this, plan, async (key) => {
      const tag = probeTag('input');
      const marker = `petload-invalid-${nonce()}`;
      for (const [i, b] of INVALID_BODIES.entries()) {
        const ex = await sendPatiently(ctx, keySpec(key, 'createPet', '/pets', tag, b.body(`${marker}-${i}`)));
        if (isRateLimitRefusal(ex) || ex.error !== null) {
          ctx.ledger.skip(
            'create.rejects-invalid',
            plan,
            ex.error ? prefixed(`${b.what}: `, NO_WHOLE_RESPONSE) : `${b.what}: refused by the rate limit, not judged`,
          );
          continue;
        }
        ctx.ledger.judge(
          'create.rejects-invalid',
          plan,
          ex.status === 400,
          () => `${b.what}: expected 400, got ${ex.status ?? 'no response'}`,
          ex,
        );
      }
      // Nothing may have been created: look for the marker in every list the interface lets us read.
      for (const q of LEAK_QUERIES) {
        const ex = await sendPatiently(ctx, keySpec(key, 'listPets', `/pets${q}`, tag));
        const leaked = petsIn(ex).filter((p) => p.name.startsWith(marker));
        if (leaked.length > 0) {
          ctx.ledger.fail(
            'create.rejects-invalid',
            plan,
            `an animal was created from an invalid body: ${leaked.map((p) => `${p.name} (id ${p.id})`).join(', ')}`,
            ex,
          );
        }
      }
    });
  },
};

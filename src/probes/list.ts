/** The list probe: a table of list queries, judged passively by the list.* checks. */
import { keySpec, probeTag, sendPatiently } from './context.js';
import type { Probe } from './probe.js';
import { HEADROOM_SLOT, withKey } from './with-key.js';

/** The list probe's table of queries: within the constraints, then outside them. */
const LIST_QUERIES = [
  '',
  '?limit=1',
  '?limit=2',
  '?limit=50',
  '?limit=100',
  '?status=available',
  '?status=pending',
  '?status=sold',
  '?limit=100&status=available',
  '?limit=0',
  '?limit=101',
  '?limit=-1',
  '?limit=abc',
  '?limit=1.5',
  '?status=foo',
  '?status=AVAILABLE',
];

export const listProbe: Probe = {
  name: 'list',
  checks: [
    'list.schema',
    'list.limit-respected',
    'list.limit-out-of-range',
    'list.status-filter',
    'list.invalid-status',
  ],
  perPlan: true,
  needs: { sends: 'shared', window: 'headroom', slot: HEADROOM_SLOT, requests: LIST_QUERIES.length },
  async run(ctx, plan) {
    await withKey(ctx, this, plan, async (key) => {
      const tag = probeTag('list');
      // Judged passively by the list.* checks, from each request's query.
      for (const q of LIST_QUERIES) await sendPatiently(ctx, keySpec(key, 'listPets', `/pets${q}`, tag));
    });
  },
};

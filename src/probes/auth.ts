/**
 * The auth probe: every endpoint the interface names with each credential that is not a valid key (none, an unknown key, an empty
 * Bearer, a Basic credential). Judged passively, by the auth.* and the header checks.
 */
import { OPERATIONS, type OperationId } from '../api/operations.js';
import type { RequestSpec } from '../http/exchange.js';
import { probeTag } from './context.js';
import { nonce } from './pets.js';
import type { Probe } from './probe.js';

/** Every endpoint the interface names: GET /store/orders too, whose payloads it does not show (none is sent). */
const ENDPOINTS: { operation: OperationId; path: string; body?: string }[] = [
  { operation: 'listPets', path: '/pets' },
  { operation: 'createPet', path: '/pets', body: JSON.stringify({ name: 'petload-auth', categoryId: 1 }) },
  { operation: 'getPet', path: '/pets/1' },
  { operation: 'listOrders', path: OPERATIONS.listOrders.path },
];

/** The credentials the auth table tries on every endpoint, none of them a valid key. */
const credentials = (): RequestSpec['auth'][] => [
  { kind: 'none' },
  { kind: 'raw', header: `Bearer pl-unknown-${nonce()}${nonce()}`, label: 'unknown key' },
  { kind: 'raw', header: 'Bearer ', label: 'empty Bearer' },
  { kind: 'raw', header: `Basic ${Buffer.from('petload:not-a-key').toString('base64')}`, label: 'Basic credential' },
];

export const authProbe: Probe = {
  name: 'auth',
  checks: ['auth.missing-key', 'auth.invalid-key', 'auth.challenge'],
  perPlan: false,
  needs: { sends: 'alone', window: 'none', unkeyed: ENDPOINTS.length * credentials().length },
  async run(ctx) {
    const tag = probeTag('auth');
    const creds = credentials();
    for (const e of ENDPOINTS) {
      for (const auth of creds) {
        const spec: RequestSpec = {
          operation: e.operation,
          method: OPERATIONS[e.operation].method,
          path: e.path,
          auth,
          tag,
        };
        if (e.body !== undefined) spec.body = e.body;
        await ctx.send(spec); // judged by auth.* and the header checks, passively
      }
    }
  },
};

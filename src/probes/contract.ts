/**
 * Probes for the request/response contract: auth table, invalid bodies, list tables, create-then-get, unknown ids,
 * the deprecated endpoint. Most of their verdicts come from the passive checks, which judge every exchange by its
 * request; these probes judge what needs knowledge of the sequence (what was created, what was counted).
 */
import { randomBytes } from 'node:crypto';
import { OPERATIONS, GET_PET_SUNSET } from '../api/operations.js';
import type { PlanName } from '../api/plans.js';
import { Pet, Pets } from '../api/schemas.js';
import type { ApiKey } from '../core/api-key.js';
import { headerValue, type Exchange, type RequestSpec } from '../http/exchange.js';
import { parseDeprecation, parseHttpDate } from '../http/headers.js';
import { isRateLimitRefusal, issueSummary } from '../checks/passive/contract.js';
import { bodyReadOf } from '../checks/passive/view.js';
import { keySpec, othersSince, probeTag, sendPatiently, skipAll, usableKey, type ProbeContext } from './context.js';
import type { Probe } from './probe.js';
import { HEADER_CHECKS, sameWindow, tripleOf } from './window.js';

const nonce = () => randomBytes(4).toString('hex');
const idText = (v: unknown) => (typeof v === 'bigint' || typeof v === 'number' ? String(v) : null);

/** Ids and names of the animals in a list response (empty when the body is not a list of Pets). */
function petsIn(ex: Exchange): { id: string; name: string; status?: string }[] {
  if (ex.body.kind !== 'json') return [];
  const r = Pets.safeParse(ex.body.value);
  return r.success
    ? r.data.map((p) => ({ id: String(p.id), name: p.name, ...(p.status ? { status: p.status } : {}) }))
    : [];
}

async function withKey(ctx: ProbeContext, probe: Probe, plan: PlanName | null, body: (key: ApiKey) => Promise<void>) {
  const key = plan === null ? null : await usableKey(ctx, plan);
  if (!key) return skipAll(ctx, probe.checks, plan, `no usable ${plan ?? ''} key`);
  await body(key);
}

const ENDPOINTS: { operation: 'listPets' | 'createPet' | 'getPet'; path: string; body?: string }[] = [
  { operation: 'listPets', path: '/pets' },
  { operation: 'createPet', path: '/pets', body: JSON.stringify({ name: 'petload-auth', categoryId: 1 }) },
  { operation: 'getPet', path: '/pets/1' },
];

/** The credentials the auth table tries on every endpoint, none of them a valid key. */
const credentials = (): RequestSpec['auth'][] => [
  { kind: 'none' },
  { kind: 'raw', header: `Bearer pl-unknown-${nonce()}${nonce()}`, label: 'unknown key' },
  { kind: 'raw', header: 'Bearer ', label: 'empty Bearer' },
  { kind: 'raw', header: `Basic ${Buffer.from('petload:not-a-key').toString('base64')}`, label: 'Basic credential' },
];

/** The headroom probes share one key: the third of the plan's (the first two count exactly). */
const HEADROOM_SLOT = 2;

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
            ex.error
              ? `${b.what}: no whole response (see contract.transport)`
              : `${b.what}: refused by the rate limit, not judged`,
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

const NO_WHOLE_RESPONSE = 'no whole response (see contract.transport)';

/** Why a probe cannot judge an exchange's body, naming the check that owns that defect; null when it can. */
function unreadable(ex: Exchange): string | null {
  if (ex.error !== null) return NO_WHOLE_RESPONSE;
  const b = bodyReadOf(ex);
  return b.kind === 'unusable' ? b.reason : null;
}

/** The id in a JSON body that has one (a Pet or not), as text. */
function idIn(ex: Exchange): string | null {
  const b = bodyReadOf(ex);
  if (b.kind !== 'json' || typeof b.value !== 'object' || b.value === null) return null;
  return idText((b.value as { id?: unknown }).id);
}

/** The fields an animal was created with: the created Pet when the answer was one, else what was sent. */
interface Created {
  id: string;
  name: string;
  categoryId: string;
  /** Compared only when known: sent, or echoed by a created Pet. */
  status?: { value: string | undefined };
}

export const createGetProbe: Probe = {
  name: 'create-get',
  checks: ['create.returns-pet', 'get.returns-pet'],
  perPlan: true,
  // A list, two creates, two gets.
  needs: { sends: 'shared', window: 'headroom', slot: HEADROOM_SLOT, requests: 5 },
  async run(ctx, plan) {
    await withKey(ctx, this, plan, async (key) => {
      const tag = probeTag('create-get');
      const seen = new Set(
        petsIn(await sendPatiently(ctx, keySpec(key, 'listPets', '/pets?limit=100', tag))).map((p) => p.id),
      );
      const sent = [
        { name: `petload-${nonce()}-with-status`, categoryId: 7, status: 'pending' as const },
        { name: `petload-${nonce()}-no-status`, categoryId: 8 },
      ];
      const made: Created[] = [];
      for (const body of sent) {
        const ex = await sendPatiently(ctx, keySpec(key, 'createPet', '/pets', tag, body));
        if (ex.error !== null) {
          ctx.ledger.skip('create.returns-pet', plan, NO_WHOLE_RESPONSE);
          ctx.ledger.skip(
            'get.returns-pet',
            plan,
            `the animal's id is unknown: the create answer was not judged (${NO_WHOLE_RESPONSE})`,
          );
          continue;
        }
        if (isRateLimitRefusal(ex)) {
          skipAll(ctx, this.checks, plan, 'refused by the rate limit, not judged');
          continue;
        }
        if (ex.status !== 201) {
          ctx.ledger.fail(
            'create.returns-pet',
            plan,
            `valid NewPet ${JSON.stringify(body)}: expected 201, got ${ex.status ?? 'no response'}`,
            ex,
          );
          ctx.ledger.skip('get.returns-pet', plan, 'no animal was created (see create.returns-pet)');
          continue;
        }
        const bad = unreadable(ex);
        if (bad !== null) {
          ctx.ledger.skip('create.returns-pet', plan, bad);
          ctx.ledger.skip(
            'get.returns-pet',
            plan,
            `the animal's id is unknown: the create answer was not judged (${bad})`,
          );
          continue;
        }
        const read = bodyReadOf(ex);
        const parsed = read.kind === 'json' ? Pet.safeParse(read.value) : null;
        const id = idIn(ex);
        if (!parsed?.success) {
          ctx.ledger.fail(
            'create.returns-pet',
            plan,
            `201 body is not a Pet${parsed ? `: ${issueSummary(parsed.error, read.kind === 'json' ? read.value : null)}` : ''}`,
            ex,
          );
          // The animal exists all the same: GET judges the Pet of its own operation, against what was sent.
          if (id === null || seen.has(id))
            ctx.ledger.skip('get.returns-pet', plan, 'no new id in the create answer (see create.returns-pet)');
          else {
            seen.add(id);
            made.push({
              id,
              name: body.name,
              categoryId: String(body.categoryId),
              ...('status' in body ? { status: { value: body.status } } : {}),
            });
          }
          continue;
        }
        const pet = parsed.data;
        const petId = String(pet.id);
        const problems: string[] = [];
        if (pet.name !== body.name)
          problems.push(`name ${JSON.stringify(pet.name)} instead of ${JSON.stringify(body.name)}`);
        if (String(pet.categoryId) !== String(body.categoryId))
          problems.push(`categoryId ${String(pet.categoryId)} instead of ${body.categoryId}`);
        if ('status' in body && pet.status !== body.status)
          problems.push(`status ${String(pet.status)} instead of ${body.status}`);
        const reused = seen.has(petId);
        if (reused) problems.push(`id ${petId} is not new`);
        seen.add(petId);
        ctx.ledger.judge(
          'create.returns-pet',
          plan,
          problems.length === 0,
          () => `created Pet does not echo the request: ${problems.join('; ')}`,
          ex,
        );
        if (!('status' in body)) {
          const what = pet.status === undefined ? 'no status' : `status "${pet.status}"`;
          ctx.ledger.info('create.returns-pet', plan, 'statusWhenOmitted', what);
          ctx.note(`An animal added without a status gets ${what}.`);
        }
        // An id that is not new may name another animal: what GET answers for it says nothing of this one.
        if (reused) ctx.ledger.skip('get.returns-pet', plan, 'the create answer reused an id (see create.returns-pet)');
        else
          made.push({ id: petId, name: pet.name, categoryId: String(pet.categoryId), status: { value: pet.status } });
      }
      for (const c of made) {
        const ex = await sendPatiently(ctx, keySpec(key, 'getPet', `/pets/${c.id}`, tag));
        if (ex.error !== null) {
          ctx.ledger.skip('get.returns-pet', plan, NO_WHOLE_RESPONSE);
          continue;
        }
        if (isRateLimitRefusal(ex)) {
          ctx.ledger.skip('get.returns-pet', plan, 'refused by the rate limit, not judged');
          continue;
        }
        if (ex.status !== 200) {
          ctx.ledger.fail(
            'get.returns-pet',
            plan,
            `GET of the animal just created (id ${c.id}): expected 200, got ${ex.status ?? 'no response'}`,
            ex,
          );
          continue;
        }
        const bad = unreadable(ex);
        if (bad !== null) {
          ctx.ledger.skip('get.returns-pet', plan, bad);
          continue;
        }
        const read = bodyReadOf(ex);
        const got = read.kind === 'json' ? Pet.safeParse(read.value) : null;
        if (!got?.success) {
          ctx.ledger.fail(
            'get.returns-pet',
            plan,
            `GET /pets/${c.id}: the 200 body is not a Pet${got ? `: ${issueSummary(got.error, read.kind === 'json' ? read.value : null)}` : ''}`,
            ex,
          );
          continue;
        }
        const p = got.data;
        const problems: string[] = [];
        if (String(p.id) !== c.id) problems.push(`id ${String(p.id)}`);
        if (p.name !== c.name) problems.push(`name ${JSON.stringify(p.name)}`);
        if (String(p.categoryId) !== c.categoryId) problems.push(`categoryId ${String(p.categoryId)}`);
        if (c.status !== undefined && p.status !== c.status.value) problems.push(`status ${String(p.status)}`);
        ctx.ledger.judge(
          'get.returns-pet',
          plan,
          problems.length === 0,
          () => `GET /pets/${c.id} does not return the animal as created: ${problems.join('; ')}`,
          ex,
        );
      }
    });
  },
};

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
      const max = ids.reduce((a, b) => (a > b ? a : b), 0n);
      // Far above any id seen, but a safe integer; and the largest int64.
      const unknown = [String(max + 1_000_003n < 2n ** 53n ? max + 1_000_003n : 2n ** 53n - 7n), '9223372036854775807'];
      for (const id of unknown) {
        const ex = await sendPatiently(ctx, keySpec(key, 'getPet', `/pets/${id}`, tag));
        if (isRateLimitRefusal(ex) || ex.error !== null) {
          ctx.ledger.skip(
            'get.unknown-404',
            plan,
            ex.error ? 'no whole response (see contract.transport)' : 'refused by the rate limit, not judged',
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

export const deprecatedProbe: Probe = {
  name: 'deprecated',
  checks: ['deprecation.behaviour-unchanged', 'deprecation.announced'],
  perPlan: true,
  // A list, a get, a list (and a create before the get when the list is empty).
  needs: { sends: 'shared', window: 'headroom', slot: HEADROOM_SLOT, requests: 4 },
  async run(ctx, plan) {
    await withKey(ctx, this, plan, async (key) => {
      const tag = probeTag('deprecated');
      // The exchange just before the GET: the GET's quota use is measured against it.
      // Requests other probes sent since just before `before`: on a target whose keys share a counter they show.
      let others = othersSince(ctx);
      let before = await sendPatiently(ctx, keySpec(key, 'listPets', '/pets?limit=1', tag));
      let id = petsIn(before)[0]?.id;
      if (id === undefined) {
        others = othersSince(ctx);
        before = await sendPatiently(
          ctx,
          keySpec(key, 'createPet', '/pets', tag, { name: `petload-${nonce()}`, categoryId: 1 }),
        );
        id = before.status === 201 ? (idIn(before) ?? undefined) : undefined;
      }
      if (id === undefined)
        return skipAll(ctx, this.checks, plan, 'no animal id to get (see list.schema and create.returns-pet)');
      const first = await ctx.send(keySpec(key, 'getPet', `/pets/${id}`, tag));
      let [b, get, after] = [before, first, await ctx.send(keySpec(key, 'listPets', '/pets?limit=1', tag))];
      // A limiter that refills as it goes (a token bucket, GCRA) may give a request back between two answers, which
      // reads as a request not counted: measured again, twice at most. A get that is never counted fails each time.
      for (let again = 0; again < 2 && fellShort(b, get, after) && !ctx.signal.aborted; again++) {
        b = after;
        get = await ctx.send(keySpec(key, 'getPet', `/pets/${id}`, tag));
        after = await ctx.send(keySpec(key, 'listPets', '/pets?limit=1', tag));
      }
      judgeDeprecated(ctx, plan, b, get, after, others());
      judgeAnnouncement(ctx, plan, first);
    });
  },
};

/** Remaining did not go down by at least one across the get, or across the list after it, in one window. */
function fellShort(before: Exchange, get: Exchange, after: Exchange): boolean {
  const [tb, tg, ta] = [tripleOf(before), tripleOf(get), tripleOf(after)];
  if (get.status !== 200 || !sameWindow(tb, tg) || !sameWindow(tg, ta)) return false;
  return tb!.remaining - tg!.remaining < 1 || tg!.remaining - ta!.remaining < 1;
}

/**
 * deprecation.behaviour-unchanged: the status (200), and that the answer counts against the same quota as the list.
 * What is judged elsewhere is skipped naming that check: the Pet in the body (get.returns-pet, the same operation),
 * the presence of the rate-limit headers (ratelimit.headers-present), a body that did not arrive whole.
 */
export function judgeDeprecated(
  ctx: ProbeContext,
  plan: PlanName | null,
  before: Exchange,
  get: Exchange,
  after: Exchange,
  others = 0,
): void {
  const id = 'deprecation.behaviour-unchanged';
  if (get.error !== null) return ctx.ledger.skip(id, plan, NO_WHOLE_RESPONSE);
  if (isRateLimitRefusal(get)) return ctx.ledger.skip(id, plan, 'refused by the rate limit, not judged');
  if (
    !ctx.ledger.judge(
      id,
      plan,
      get.status === 200,
      () => `GET /pets/{id} of an existing animal: expected 200, got ${get.status ?? 'no response'}`,
      get,
    )
  )
    return;
  const body = bodyReadOf(get);
  if (body.kind === 'unusable') ctx.ledger.skip(id, plan, body.reason);
  else if (body.kind === 'none' || !Pet.safeParse(body.value).success)
    ctx.ledger.skip(id, plan, 'body not judged: the Pet of GET /pets/{id} is judged by get.returns-pet');
  const missing = ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset'].filter(
    (h) => headerValue(get.headers, h) === undefined,
  );
  // A header the list answers around the get lack as well is no change of behaviour: its absence is
  // ratelimit.headers-present's failure, not this check's.
  const dropped = missing.filter(
    (h) => headerValue(before.headers, h) !== undefined || headerValue(after.headers, h) !== undefined,
  );
  if (dropped.length > 0)
    return ctx.ledger.fail(
      id,
      plan,
      `the deprecated endpoint answers without ${dropped.join(', ')}, which the list answers around it carry`,
      get,
    );
  if (missing.length > 0)
    return ctx.ledger.skip(
      id,
      plan,
      `quota use not judged: the list answers lack ${missing.join(', ')} too (see ratelimit.headers-present)`,
    );
  const [tb, tg, ta] = [tripleOf(before), tripleOf(get), tripleOf(after)];
  if (!tg) return ctx.ledger.skip(id, plan, `quota use not judged: unusable X-RateLimit-* (${HEADER_CHECKS})`);
  if (!sameWindow(tb, tg) || !sameWindow(tg, ta) || before.overlapped || get.overlapped || after.overlapped) {
    return ctx.ledger.skip(id, plan, 'quota use not judged: the window changed during the sequence');
  }
  const counted = tb!.remaining - tg.remaining === 1 && tg.remaining - ta!.remaining === 1;
  // Fell further than the GET and the list explain, by no more than other probes sent meanwhile: whether other keys'
  // requests count against this key is ratelimit.key-isolation's to judge.
  const excess = tb!.remaining - ta!.remaining - 2;
  if (
    !counted &&
    excess > 0 &&
    tb!.remaining - tg.remaining >= 1 &&
    tg.remaining - ta!.remaining >= 1 &&
    excess <= others
  ) {
    return ctx.ledger.skip(
      id,
      plan,
      `quota use not judged: Remaining fell ${excess} more than this key's requests while other probes sent ${others} (see ratelimit.key-isolation)`,
    );
  }
  ctx.ledger.judge(
    id,
    plan,
    counted,
    () =>
      `Remaining went ${tb!.remaining} → ${tg.remaining} (get) → ${ta!.remaining}: the deprecated endpoint does not count against the same quota as the list`,
    get,
  );
}

const RFC9745 = /^@-?\d+$/;

function judgeAnnouncement(ctx: ProbeContext, plan: PlanName | null, get: Exchange): void {
  const id = 'deprecation.announced';
  const dep = headerValue(get.headers, 'deprecation');
  const sunset = headerValue(get.headers, 'sunset');
  if (dep === undefined && sunset === undefined) {
    ctx.ledger.pass(id, plan);
    return ctx.ledger.info(id, plan, 'headers', 'neither Deprecation nor Sunset is sent');
  }
  const problems: string[] = [];
  const depMs = dep === undefined ? null : parseDeprecation(dep);
  if (dep !== undefined && (depMs === null || !RFC9745.test(dep.trim())))
    problems.push(`Deprecation ${JSON.stringify(dep)} is not an RFC 9745 date (@<seconds>)`);
  if (sunset !== undefined) {
    const s = parseHttpDate(sunset);
    if (s === null) problems.push(`Sunset ${JSON.stringify(sunset)} is not an HTTP-date`);
    else {
      if (new Date(s).toISOString().slice(0, 10) !== GET_PET_SUNSET.toISOString().slice(0, 10))
        problems.push(`Sunset ${sunset} is not 5 Dec 2030 (the announced removal date)`);
      if (depMs !== null && s < depMs) problems.push('Sunset is before Deprecation');
    }
  }
  ctx.ledger.judge(id, plan, problems.length === 0, () => problems.join('; '), get);
}

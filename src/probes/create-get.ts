/**
 * The create-get probe: two valid NewPets created (one with a status, one without), each answer judged as the Pet
 * created (create.returns-pet), then each animal read back with GET (get.returns-pet).
 */
import type { PlanName } from '../api/plans.js';
import { Pet } from '../api/schemas.js';
import type { CheckId } from '../checks/catalogue.js';
import { isRateLimitRefusal, issueSummary } from '../checks/passive/contract.js';
import { bodyReadOf } from '../checks/passive/view.js';
import type { ApiKey } from '../core/api-key.js';
import type { Exchange } from '../http/exchange.js';
import { keySpec, type ProbeContext, probeTag, sendPatiently, skipAll } from './context.js';
import { idIn, nonce, petsIn } from './pets.js';
import type { Probe } from './probe.js';
import { NO_WHOLE_RESPONSE } from './reasons.js';
import { HEADROOM_SLOT, withKey } from './with-key.js';
import { see, type SkipReason, prefixed } from '../checks/skip-reason.js';

/** Why a probe cannot judge an exchange's body, naming the check that owns that defect; null when it can. */
function unreadable(ex: Exchange): SkipReason | null {
  if (ex.error !== null) return NO_WHOLE_RESPONSE;
  const b = bodyReadOf(ex);
  return b.kind === 'unusable' ? b.reason : null;
}

/** The fields an animal was created with: the created Pet when the answer was one, else what was sent. */
interface Created {
  id: string;
  name: string;
  categoryId: string;
  /** Compared only when known: sent, or echoed by a created Pet. */
  status?: { value: string | undefined };
}

/** A valid NewPet the probe sends. */
interface NewPetBody {
  name: string;
  categoryId: number;
  status?: 'pending';
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
      const sent: NewPetBody[] = [
        { name: `petload-${nonce()}-with-status`, categoryId: 7, status: 'pending' as const },
        { name: `petload-${nonce()}-no-status`, categoryId: 8 },
      ];
      const made: Created[] = [];
      for (const body of sent) {
        const ex = await sendPatiently(ctx, keySpec(key, 'createPet', '/pets', tag, body));
        const created = judgeCreate(ctx, plan, this.checks, body, ex, seen);
        if (created !== null) made.push(created);
      }
      for (const c of made) await judgeGet(ctx, plan, key, tag, c);
    });
  },
};

/** Both checks skipped for an animal whose create answer cannot be judged, for `reason`. */
function notJudged(ctx: ProbeContext, plan: PlanName | null, reason: SkipReason): void {
  ctx.ledger.skip('create.returns-pet', plan, reason);
  ctx.ledger.skip(
    'get.returns-pet',
    plan,
    prefixed("the animal's id is unknown: the create answer was not judged: ", reason),
  );
}

/** Whether the answer to a create is a 201 with a body to judge; any other answer is judged or skipped here. */
function createdWhole(
  ctx: ProbeContext,
  plan: PlanName | null,
  checks: readonly CheckId[],
  body: NewPetBody,
  ex: Exchange,
): boolean {
  if (ex.error !== null) {
    notJudged(ctx, plan, NO_WHOLE_RESPONSE);
    return false;
  }
  if (isRateLimitRefusal(ex)) {
    skipAll(ctx, checks, plan, 'refused by the rate limit, not judged');
    return false;
  }
  if (ex.status !== 201) {
    ctx.ledger.fail(
      'create.returns-pet',
      plan,
      `valid NewPet ${JSON.stringify(body)}: expected 201, got ${ex.status ?? 'no response'}`,
      ex,
    );
    ctx.ledger.skip('get.returns-pet', plan, see('no animal was created', 'create.returns-pet'));
    return false;
  }
  const bad = unreadable(ex);
  if (bad !== null) {
    notJudged(ctx, plan, bad);
    return false;
  }
  return true;
}

/**
 * create.returns-pet, from the answer `ex` to creating `body`: the animal created, for get.returns-pet to read back,
 * or null when there is no new one to read (get.returns-pet is then judged or skipped here). `seen`: the ids known.
 */
function judgeCreate(
  ctx: ProbeContext,
  plan: PlanName | null,
  checks: readonly CheckId[],
  body: NewPetBody,
  ex: Exchange,
  seen: Set<string>,
): Created | null {
  if (!createdWhole(ctx, plan, checks, body, ex)) return null;
  const read = bodyReadOf(ex);
  const parsed = read.kind === 'json' ? Pet.safeParse(read.value) : null;
  const id = idIn(ex);
  if (parsed?.success) return judgeEcho(ctx, plan, body, ex, parsed.data, seen);
  ctx.ledger.fail(
    'create.returns-pet',
    plan,
    `201 body is not a Pet${parsed ? `: ${issueSummary(parsed.error, read.kind === 'json' ? read.value : null)}` : ''}`,
    ex,
  );
  // The animal exists all the same: GET judges the Pet of its own operation, against what was sent.
  if (id === null || seen.has(id)) {
    ctx.ledger.skip('get.returns-pet', plan, see('no new id in the create answer', 'create.returns-pet'));
    return null;
  }
  seen.add(id);
  return {
    id,
    name: body.name,
    categoryId: String(body.categoryId),
    ...('status' in body ? { status: { value: body.status } } : {}),
  };
}

/**
 * create.returns-pet for a 201 whose body is a Pet: it echoes `body` under a new id. The animal created, or null when
 * its id is not new (get.returns-pet is then skipped).
 */
function judgeEcho(
  ctx: ProbeContext,
  plan: PlanName | null,
  body: NewPetBody,
  ex: Exchange,
  pet: Pet,
  seen: Set<string>,
): Created | null {
  const petId = String(pet.id);
  const problems: string[] = [];
  if (pet.name !== body.name) problems.push(`name ${JSON.stringify(pet.name)} instead of ${JSON.stringify(body.name)}`);
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
  if (reused) {
    ctx.ledger.skip('get.returns-pet', plan, see('the create answer reused an id', 'create.returns-pet'));
    return null;
  }
  return { id: petId, name: pet.name, categoryId: String(pet.categoryId), status: { value: pet.status } };
}

/** get.returns-pet: GET of an animal just created returns it as created. */
async function judgeGet(ctx: ProbeContext, plan: PlanName | null, key: ApiKey, tag: string, c: Created): Promise<void> {
  const ex = await sendPatiently(ctx, keySpec(key, 'getPet', `/pets/${c.id}`, tag));
  if (ex.error !== null) {
    ctx.ledger.skip('get.returns-pet', plan, NO_WHOLE_RESPONSE);
    return;
  }
  if (isRateLimitRefusal(ex)) {
    ctx.ledger.skip('get.returns-pet', plan, 'refused by the rate limit, not judged');
    return;
  }
  if (ex.status !== 200) {
    ctx.ledger.fail(
      'get.returns-pet',
      plan,
      `GET of the animal just created (id ${c.id}): expected 200, got ${ex.status ?? 'no response'}`,
      ex,
    );
    return;
  }
  const bad = unreadable(ex);
  if (bad !== null) {
    ctx.ledger.skip('get.returns-pet', plan, bad);
    return;
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
    return;
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

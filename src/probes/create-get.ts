/**
 * The create-get probe: two valid NewPets created (one with a status, one without), each answer judged as the Pet
 * created (create.returns-pet), then each animal read back with GET (get.returns-pet).
 */
import { Pet } from '../api/schemas.js';
import { isRateLimitRefusal, issueSummary } from '../checks/passive/contract.js';
import { bodyReadOf } from '../checks/passive/view.js';
import type { Exchange } from '../http/exchange.js';
import { keySpec, probeTag, sendPatiently, skipAll } from './context.js';
import { idIn, nonce, petsIn } from './pets.js';
import type { Probe } from './probe.js';
import { NO_WHOLE_RESPONSE } from './reasons.js';
import { HEADROOM_SLOT, withKey } from './with-key.js';

/** Why a probe cannot judge an exchange's body, naming the check that owns that defect; null when it can. */
function unreadable(ex: Exchange): string | null {
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

/**
 * The deprecated probe: GET /pets/{id} between two lists; it must answer as before and count against the same quota
 * (deprecation.behaviour-unchanged), and announce its deprecation well if it does (deprecation.announced).
 */
import { GET_PET_SUNSET } from '../api/operations.js';
import type { PlanName } from '../api/plans.js';
import { Pet } from '../api/schemas.js';
import { isRateLimitRefusal } from '../checks/passive/contract.js';
import { bodyReadOf } from '../checks/passive/view.js';
import { type Exchange, headerValue } from '../http/exchange.js';
import { parseDeprecation, parseHttpDate } from '../http/headers.js';
import { keySpec, othersSince, type ProbeContext, probeTag, sendPatiently, skipAll } from './context.js';
import { idIn, nonce, petsIn } from './pets.js';
import type { Probe } from './probe.js';
import { NO_WHOLE_RESPONSE } from './reasons.js';
import { sameWindow, tripleOf, unusableHeaders } from './window.js';
import { HEADROOM_SLOT, withKey } from './with-key.js';
import { see } from '../checks/skip-reason.js';

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
        return skipAll(ctx, this.checks, plan, see('no animal id to get', 'list.schema', 'create.returns-pet'));
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
    ctx.ledger.skip(id, plan, see('body not judged: the Pet of GET /pets/{id} is judged', 'get.returns-pet'));
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
      see(`quota use not judged: the list answers lack ${missing.join(', ')} too`, 'ratelimit.headers-present'),
    );
  const [tb, tg, ta] = [tripleOf(before), tripleOf(get), tripleOf(after)];
  if (!tg) return ctx.ledger.skip(id, plan, unusableHeaders('quota use not judged: unusable X-RateLimit-*'));
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
      see(
        `quota use not judged: Remaining fell ${excess} more than this key's requests while other probes sent ${others}`,
        'ratelimit.key-isolation',
      ),
    );
  }
  const message = () =>
    `Remaining went ${tb!.remaining} → ${tg.remaining} (get) → ${ta!.remaining}: the deprecated endpoint does not count against the same quota as the list`;
  if (!counted && tb!.remaining - ta!.remaining < 2) {
    // Fell less than the GET and the list explain: on a limiter that refills or slides, a token or a request of a
    // minute before came back between them (ratelimit.algorithm reads the shape at the end of the run); on any
    // other, the defect. Held to the end of the run (the catalogue's deferral decides).
    return ctx.ledger.hold(id, plan, { kind: 'short-window', count: 1, first: [{ ex: get, message: message() }] });
  }
  ctx.ledger.judge(id, plan, counted, message, get);
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

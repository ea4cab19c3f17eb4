/**
 * The IETF rate-limit fields, when a target sends them (the interface does not require them, so both checks are
 * advisory; they never stand in for X-RateLimit-* in ratelimit.headers-present):
 * - ratelimit-fields.syntax: well formed for the draft form they are in, the form named in the evidence;
 * - ratelimit-fields.consistent: beside usable X-RateLimit-*, one of the limits listed is the one X-RateLimit-*
 *   describe (its remaining is Remaining, its reset Reset - Date within 1 s, its quota Limit), and every policy's
 *   quota per window is a figure of the key's plan (per minute: w 60; per day: w 86 400).
 */
import { DAY_S, MINUTE_S } from '../../api/plans.js';
import {
  FORM_NAMES,
  readRateLimitFields,
  type FieldLimit,
  type FieldPolicy,
  type FieldsRead,
} from '../../http/ratelimit-fields.js';
import type { RateLimitRead } from './ratelimit.js';
import type { Recorder, View } from './view.js';
import { prefixed } from '../skip-reason.js';

const SYNTAX = 'ratelimit-fields.syntax';
const CONSISTENT = 'ratelimit-fields.consistent';
const TOLERANCE_S = 1;

/** The limit's quota: its own (draft-03, -07), or its policy's by name (draft-11). */
function quotaOf(l: FieldLimit, policies: readonly FieldPolicy[]): number | null {
  if (l.quota !== null) return l.quota;
  return policies.find((p) => p.name === l.policy)?.quota ?? null;
}

/** Judges the response's IETF fields, when it has any; returns what was read (for the checks that use them). */
export function judgeRateLimitFields(v: View, rl: RateLimitRead | null, r: Recorder): FieldsRead {
  const fields = readRateLimitFields(v.ex.headers);
  if (!fields.present) return fields;
  if (!fields.ok) {
    r.fail(SYNTAX, v.ex, `${FORM_NAMES[fields.form]}: ${fields.problem}`);
    return fields;
  }
  r.pass(SYNTAX, v.ex);
  if (rl === null || !rl.usable || !rl.limit.ok || !rl.remaining.ok || !rl.reset.ok) {
    const why = rl?.reason ?? 'no response';
    r.skip(
      CONSISTENT,
      v.ex,
      prefixed(`no usable X-RateLimit-* to compare the ${FORM_NAMES[fields.form]} fields with: `, why),
    );
    return fields;
  }
  const [limit, remaining, reset] = [rl.limit.value, rl.remaining.value, rl.reset.value];
  const toReset = reset - v.nowMs / 1000;
  // The exchange's own duration widens the tolerance: the server stamps Date and its fields at moments of its own.
  const slack = TOLERANCE_S + (v.ex.timing.done - v.ex.timing.sent) / 1000;
  const problems: string[] = [];
  const matches = (l: FieldLimit) => {
    const q = quotaOf(l, fields.policies);
    return (
      l.remaining === remaining &&
      (l.resetS === null || Math.abs(l.resetS - toReset) <= slack) &&
      (q === null || q === limit)
    );
  };
  if (fields.limits.length > 0 && !fields.limits.some(matches)) {
    const listed = fields.limits.map(
      (l) =>
        `${l.policy === null ? '' : `"${l.policy}" `}remaining ${l.remaining}${l.resetS === null ? '' : `, reset in ${l.resetS} s`}${quotaOf(l, fields.policies) === null ? '' : ` of ${quotaOf(l, fields.policies)}`}`,
    );
    problems.push(
      `no limit listed is the one X-RateLimit-* describe (Limit ${limit}, Remaining ${remaining}, Reset in ${Math.round(toReset)} s): ${listed.join('; ')}`,
    );
  }
  const plan = v.planLimits;
  if (plan !== undefined) {
    for (const p of fields.policies) {
      if (p.windowS === null) continue;
      const name = p.name === null ? `${p.quota};w=${p.windowS}` : `"${p.name}"`;
      if (p.windowS === MINUTE_S && p.quota !== plan.perMinute)
        problems.push(`policy ${name} allows ${p.quota} a minute; the plan's figure is ${plan.perMinute}`);
      else if (p.windowS === DAY_S && p.quota !== plan.perDay)
        problems.push(`policy ${name} allows ${p.quota} a day; the plan's figure is ${plan.perDay}`);
      else if (p.windowS !== MINUTE_S && p.windowS !== DAY_S)
        problems.push(`policy ${name} has a window of ${p.windowS} s, neither the plan's minute nor its day`);
    }
  }
  if (problems.length === 0) r.pass(CONSISTENT, v.ex);
  else r.fail(CONSISTENT, v.ex, `${FORM_NAMES[fields.form]}: ${problems.join('; ')}`);
  return fields;
}

/**
 * The daily-quota guard of a run against a remote target, inside the plan: it sends nothing of its own.
 *
 * Before any traffic, each plan's estimate is held to its keys' full daily quotas (what they can have left at
 * most): a run that needs more stops there (E_SAFETY), unless the user allows it. Then each key's remaining day is
 * read from the first answer on it, which is the first request of whichever probe or load phase spends the key
 * anyway: the schedule and the estimate are the same as a local run's, and no minute window is opened early. That
 * first request goes out alone (the key's other requests wait for its answer); when the answer's headers describe
 * the day window and the key has less left than the run will still send on it, the run stops there, one request
 * spent on the key. Where the headers describe the minute window, the day cannot be known from them: the guard
 * says so once and sends nothing to learn it.
 */
import { PetloadError } from '../core/errors.js';
import type { ApiKey } from '../core/api-key.js';
import type { Exchange } from '../http/exchange.js';
import type { SendGate } from './run-context.js';
import { formatCount, type Estimate } from './estimate.js';
import { decideQuota, keyLine, readDayQuota, type DayQuota } from './quota.js';

const HINT =
  'Run fewer plans or a shorter scenario, wait for the day window to reset, or pass --allow-quota-exhaustion if the keys may run dry.';

export interface QuotaGateOptions {
  /** Go ahead even when a key's day would run dry (--allow-quota-exhaustion, or a plan audit). */
  readonly allow: boolean;
  /** A line the user must see, and the same for the report's notes. */
  readonly say: (line: string) => void;
  readonly note: (line: string) => void;
  /** Stop the run (its sends throw `error` from then on). */
  readonly stop: (error: PetloadError) => void;
}

export interface QuotaGate extends SendGate {
  /**
   * The run's estimate, before any traffic: holds each plan to its keys' full days (throws E_SAFETY when it does
   * not fit and the user did not allow it), and arms the reading of each key's first answer.
   */
  expect(estimate: Estimate, keys: readonly ApiKey[]): void;
}

function refusal(problem: string, sent: 'nothing' | 'nothing more'): PetloadError {
  return new PetloadError('E_SAFETY', `${problem}; ${sent} was sent`, { hint: HINT });
}

export function createQuotaGate(o: QuotaGateOptions): QuotaGate {
  let planned: Readonly<Record<string, number>> | null = null;
  /** Per key label: the first request's answer being awaited, or done (the key's requests go straight out). */
  const state = new Map<string, Promise<void> | 'read'>();
  let saidUnknown = false;

  const tell = (line: string) => {
    o.say(`  ${line}`);
    o.note(`Daily quota: ${line}.`);
  };

  /** What the first answer on `key` says of its day, and whether the run may go on spending it. */
  const read = (key: ApiKey, ex: Exchange): void => {
    const q: DayQuota = readDayQuota(key, ex);
    if (q.remaining === null) {
      if (!saidUnknown) {
        saidUnknown = true;
        tell(
          `today's remaining quota is unknown (${key.label}'s first answer: ${q.unknownBecause ?? 'not reported'}); nothing is sent to learn it, and each plan's requests fit in its keys' full daily quotas`,
        );
      }
      return;
    }
    tell(keyLine(q));
    const still = (planned?.[key.label] ?? 0) - 1;
    if (still <= q.remaining) return;
    const problem = `the run would use up a key's daily quota: ${key.label} is to be sent ${formatCount(still)} more requests, more than the ${formatCount(q.remaining)} it has left today`;
    if (o.allow) tell(`going ahead anyway (--allow-quota-exhaustion): ${problem}`);
    else o.stop(refusal(problem, 'nothing more'));
  };

  const send: SendGate['send'] = async (spec, next) => {
    if (planned === null || spec.auth.kind !== 'key') return next(spec);
    const key = spec.auth.key;
    for (let round = 0; round < 100; round++) {
      const s = state.get(key.label);
      if (s === 'read') break;
      if (s !== undefined) {
        await s;
        continue;
      }
      // The key's first request: the others on the key wait for its answer.
      let done!: () => void;
      state.set(key.label, new Promise<void>((r) => (done = r)));
      try {
        const ex = await next(spec);
        if (ex.status === null) state.delete(key.label);
        else {
          state.set(key.label, 'read');
          read(key, ex);
        }
        return ex;
      } catch (e) {
        state.delete(key.label);
        throw e;
      } finally {
        done();
      }
    }
    return next(spec);
  };

  return {
    send,
    async sendSimultaneous(specs, next) {
      if (planned === null) return next(specs);
      // The first request on each key not read yet goes out alone first, through the gate; the rest together.
      const first = new Map<string, number>();
      for (const [i, s] of specs.entries()) {
        if (s.auth.kind === 'key' && state.get(s.auth.key.label) !== 'read' && !first.has(s.auth.key.label))
          first.set(s.auth.key.label, i);
      }
      if (first.size === 0) return next(specs);
      const alone = [...first.values()];
      const early = await Promise.all(alone.map((i) => send(specs[i]!, async (s) => (await next([s]))[0]!)));
      const restIdx = specs.map((_, i) => i).filter((i) => !alone.includes(i));
      const rest = restIdx.length > 0 ? await next(restIdx.map((i) => specs[i]!)) : [];
      const out: Exchange[] = new Array(specs.length);
      for (const [j, i] of alone.entries()) out[i] = early[j]!;
      for (const [j, i] of restIdx.entries()) out[i] = rest[j]!;
      return out;
    },
    expect(estimate, keys) {
      const unread = keys.map(
        (k): DayQuota => ({ key: k.label, plan: k.plan, perDay: k.limits.perDay, remaining: null }),
      );
      const decision = decideQuota(estimate, unread, o.allow);
      if (!decision.proceed) throw refusal(decision.problem ?? "the run would use up a key's daily quota", 'nothing');
      const over = decision.lines.filter((l) => l.startsWith('going ahead anyway'));
      for (const line of over) tell(line);
      planned = estimate.requestsByKey;
    },
  };
}

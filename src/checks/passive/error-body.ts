/**
 * retry-after.error-body: a 429 with a body has an Error with status 429. A body that is not JSON is
 * contract.json-content-type's failure, one that does not parse contract.transport's.
 *
 * One defect, one failure: when the 429 bodies have the same defect contract.error-shape found on the target's
 * other error bodies (the same fields rejected, or a `status` other than the HTTP status), that is one defect of the
 * target's error bodies, contract.error-shape's. Since a 429 may come before any other error, a 429 body with a
 * defect is held until the end of the run (bounded: a few kinds, a few exchanges each for evidence); then those of
 * a kind contract.error-shape found are handed to the ledger as `same-defect`, deferred to that check in the
 * catalogue (skipped naming it, since it failed), and the others failed.
 */
import type { PlanName } from '../../api/plans.js';
import type { Exchange } from '../../http/exchange.js';
import { MAX_EVIDENCE, type Ledger } from '../ledger.js';
import { errorBodyDefect, type ErrorBodyDefect } from './contract.js';
import type { Recorder, View } from './view.js';

const ID = 'retry-after.error-body';
/** Kinds of defect held per plan; beyond them a defect is failed at once. */
const MAX_KINDS = 16;

interface Held {
  message: string;
  count: number;
  /** The first few exchanges, for evidence. */
  exchanges: Exchange[];
}

export interface ErrorBodyJudge {
  /** Tell the judge what contract.error-shape found on a non-429 error body (null: nothing, or an Error). */
  sawErrorShape(defect: ErrorBodyDefect | null): void;
  /** Judge a 429's body. */
  judge(v: View, r: Recorder): void;
  /** Hand the held 429 bodies over: deferred to contract.error-shape when it found the same defect, else failed. */
  finish(ledger: Ledger): void;
}

export function createErrorBodyJudge(): ErrorBodyJudge {
  const shapeDefects = new Set<string>();
  const held = new Map<PlanName | null, Map<string, Held>>();
  return {
    sawErrorShape(defect) {
      if (defect !== null && !shapeDefects.has(defect.kind) && shapeDefects.size < MAX_KINDS)
        shapeDefects.add(defect.kind);
    },
    judge(v, r) {
      const { ex, body } = v;
      if (v.status !== 429 || body.kind === 'none') return;
      if (body.kind === 'unusable') return r.skip(ID, ex, body.reason);
      const defect = errorBodyDefect(body.value, 429);
      if (defect === null) return r.pass(ID, ex);
      let byKind = held.get(ex.plan);
      if (byKind === undefined) held.set(ex.plan, (byKind = new Map()));
      let h = byKind.get(defect.kind);
      if (h === undefined) {
        if (byKind.size >= MAX_KINDS) return r.fail(ID, ex, defect.message);
        byKind.set(defect.kind, (h = { message: defect.message, count: 0, exchanges: [] }));
      }
      h.count++;
      if (h.exchanges.length < MAX_EVIDENCE) h.exchanges.push(ex);
    },
    finish(ledger) {
      for (const [plan, byKind] of held) {
        for (const [kind, h] of byKind) {
          if (shapeDefects.has(kind)) {
            const first = h.exchanges.map((ex) => ({ ex, message: h.message }));
            ledger.hold(ID, plan, { kind: 'same-defect', count: h.count, first });
            continue;
          }
          for (const ex of h.exchanges) ledger.fail(ID, plan, h.message, ex);
          for (let i = h.exchanges.length; i < h.count; i++) ledger.fail(ID, plan, h.message);
        }
      }
      held.clear();
    },
  };
}

/**
 * The ledger collects check outcomes: failures are values with evidence, never thrown.
 * Each (check id, plan) pair keeps counts, the first few pieces of evidence, skip reasons and info facts.
 */
import type { PlanName } from '../api/plans.js';
import { headerValue, type Exchange } from '../http/exchange.js';
import type { RunEventOf } from '../core/run-events.js';
import type { CheckInfo, InfoCheckId, InfoKey, InfoValue } from '../report/check-info.js';
import { redactEvidence } from '../report/redact.js';
import { type AnyCheckId, CATALOGUE, type CheckId, type HeldKind } from './catalogue.js';
import { DEFERRAL_ORDER, deferralsOf, type DeferralView, holds, reasonOf, type RunFacts } from './deferrals.js';
import { lineOf, type SkipReason } from './skip-reason.js';

export const MAX_EVIDENCE = 5;
/** A message quotes what the target sent: an absurd header must not make an absurd report. */
const MAX_MESSAGE = 500;
const MAX_REASONS = 5;
const BODY_EXCERPT = 300;

export interface Evidence {
  message: string;
  request?: string;
  key?: string;
  status?: number | null;
  headers?: Record<string, string>;
  body?: string;
  tag?: string;
}

export type CheckStatus = 'pass' | 'fail' | 'skip';

export interface Outcome {
  id: AnyCheckId;
  plan: PlanName | null;
  passed: number;
  failed: number;
  skipped: number;
  evidence: Evidence[];
  skipReasons: string[];
  info: Record<string, unknown>;
  /**
   * Skipped because the probe that judges it ended early (src/engine/probe-bounds.ts): the checks that own what
   * the target did to end it (empty: none was found). Absent: no probe of this check on the plan was cut short.
   */
  cutShort?: string[];
}

/** Headers worth showing as evidence: those the checks judge. The Authorization header is never recorded. */
const EVIDENCE_HEADERS = [
  'date',
  'content-type',
  'content-length',
  'x-ratelimit-limit',
  'x-ratelimit-remaining',
  'x-ratelimit-reset',
  'retry-after',
  'www-authenticate',
  'deprecation',
  'sunset',
];

/** The start of a text; a cut is marked with `…`, where the redactor looks for a cut piece of a key. */
function cut(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}…`;
}

/** The same, `…` included in the `max` characters. */
function cutWithin(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

export function evidenceOf(ex: Exchange, message: string): Evidence {
  const headers: Record<string, string> = {};
  for (const h of EVIDENCE_HEADERS) {
    const v = headerValue(ex.headers, h);
    if (v !== undefined) headers[h] = cut(v, 200);
  }
  const ev: Evidence = {
    message,
    request: `${ex.method} ${ex.path}${ex.requestBody !== null ? ` body=${cut(ex.requestBody, 120)}` : ''}`,
    status: ex.status,
    headers,
    tag: ex.tag,
  };
  if (ex.keyLabel !== null) ev.key = ex.keyLabel;
  if (ex.error) ev.message += ` [transport: ${ex.error.kind}: ${ex.error.message}]`;
  if (ex.body.kind !== 'none') ev.body = cutWithin(ex.body.excerpt, BODY_EXCERPT);
  return ev;
}

/**
 * Failures a judge held to the end of the run under a name (`kind`), handed to the ledger to settle with the
 * deferrals: the check's plain ones first, then those declared for `kind`, in their order; failures when none holds.
 */
export interface HeldFailures {
  kind: HeldKind;
  count: number;
  /** The first few, for evidence. */
  first: readonly { ex: Exchange; message: string }[];
}

/** What the ledger tells the run's event stream as an outcome settles or changes (src/core/run-events.ts). */
export type CheckSettled = (e: RunEventOf<'check'>) => void;

export class Ledger {
  /** id → plan ('' for none) → outcome: nested maps, so that the hot path builds no string key. */
  private readonly outcomes = new Map<AnyCheckId, Map<PlanName | '', Outcome>>();
  /** Failures held to the end of the run, by check, until the deferrals are resolved. */
  private readonly held = new Map<CheckId, { plan: PlanName | null; h: HeldFailures }[]>();
  /** The same outcomes by plan, then check (slot's index), and the last plan looked up with its index. */
  private readonly byPlan = new Map<PlanName | '', Map<AnyCheckId, Outcome>>();
  private lastPlan: PlanName | '' | null = null;
  private planIndex = new Map<AnyCheckId, Outcome>();
  private resolved = false;
  /**
   * `redact`: redacts secrets from every message before it is stored. `settled`: told of an outcome's first pass,
   * each failure that gives evidence and each new skip reason (not of every pass: that is the hot path).
   */
  constructor(
    private readonly redact: (s: string) => string = (s) => s,
    private readonly settled: CheckSettled | null = null,
  ) {}

  private tell(o: Outcome, message?: string): void {
    if (this.settled === null) return;
    this.settled({
      type: 'check',
      id: o.id,
      plan: o.plan,
      status: statusOf(o),
      counts: { passed: o.passed, failed: o.failed, skipped: o.skipped },
      ...(message !== undefined ? { message } : {}),
    });
  }

  private slot(id: AnyCheckId, plan: PlanName | null): Outcome {
    // The hot path: the outcomes of the plan of the last exchange recorded, by check (one lookup, not two).
    const key = plan ?? '';
    if (key !== this.lastPlan) {
      this.lastPlan = key;
      let index = this.byPlan.get(key);
      if (index === undefined) this.byPlan.set(key, (index = new Map()));
      this.planIndex = index;
    }
    const known = this.planIndex.get(id);
    if (known !== undefined) return known;
    const o = this.newSlot(id, plan);
    this.planIndex.set(id, o);
    return o;
  }

  private newSlot(id: AnyCheckId, plan: PlanName | null): Outcome {
    let byPlan = this.outcomes.get(id);
    if (!byPlan) {
      byPlan = new Map();
      this.outcomes.set(id, byPlan);
    }
    let o = byPlan.get(plan ?? '');
    if (!o) {
      o = { id, plan, passed: 0, failed: 0, skipped: 0, evidence: [], skipReasons: [], info: {} };
      byPlan.set(plan ?? '', o);
    }
    return o;
  }

  /** Whether the check has failed on the plan so far, or holds failures there to the end of the run. */
  failedOn(id: AnyCheckId, plan: PlanName | null): boolean {
    if ((this.outcomes.get(id)?.get(plan ?? '')?.failed ?? 0) > 0) return true;
    return (this.held.get(id as CheckId) ?? []).some((x) => x.plan === plan && x.h.count > 0);
  }

  pass(id: AnyCheckId, plan: PlanName | null = null, n = 1): void {
    const o = this.slot(id, plan);
    const first = o.passed === 0 && o.failed === 0;
    o.passed += n;
    if (first) this.tell(o);
  }

  /** Record a failure. `ex` supplies the request line, status, headers and body excerpt. */
  fail(id: AnyCheckId, plan: PlanName | null, message: string, ex?: Exchange): void {
    const o = this.slot(id, plan);
    o.failed++;
    if (o.evidence.length < MAX_EVIDENCE) {
      const ev = this.scrub(ex ? evidenceOf(ex, message) : { message });
      o.evidence.push(ev);
      this.tell(o, ev.message);
    }
  }

  /**
   * A response or probe that could not be judged, with the reason (a typed reference to the checks that judge it).
   * `cutShort`: the probe that judges it ended early, and these checks own why (src/engine/probe-bounds.ts).
   */
  skip(id: AnyCheckId, plan: PlanName | null, reason: SkipReason, cutShort?: readonly CheckId[]): void {
    const o = this.slot(id, plan);
    o.skipped++;
    if (cutShort !== undefined) o.cutShort = union(o.cutShort, cutShort);
    const r = this.redact(lineOf(reason));
    if (o.skipReasons.length < MAX_REASONS && !o.skipReasons.includes(r)) {
      o.skipReasons.push(r);
      this.tell(o, r);
    }
  }

  /**
   * Turn the failures of a check on a plan into skips with `reason` (naming the check that judges the defect they
   * echo), their evidence dropped: for judgements that can only be told to be echoes at the end of the run, by
   * `resolveDeferrals` alone.
   */
  private excuse(id: AnyCheckId, plan: PlanName | null, reason: string): void {
    const o = this.outcomes.get(id)?.get(plan ?? '');
    if (o === undefined || o.failed === 0) return;
    o.skipped += o.failed;
    o.failed = 0;
    o.evidence = [];
    const r = this.redact(reason);
    if (!o.skipReasons.includes(r)) {
      if (o.skipReasons.length >= MAX_REASONS) o.skipReasons.pop();
      o.skipReasons.push(r);
    }
    this.tell(o, r);
  }

  /** Hand over failures held to the end of the run (see `HeldFailures`): the check has an outcome on the plan. */
  hold(id: CheckId, plan: PlanName | null, h: HeldFailures): void {
    if (this.resolved) throw new Error(`${id}: failures held after the deferrals were resolved`);
    this.slot(id, plan);
    let list = this.held.get(id);
    if (list === undefined) this.held.set(id, (list = []));
    list.push({ plan, h });
  }

  /**
   * The end of the run, once: each check that declares deferrals (src/checks/deferrals.ts), after every check it
   * defers to, has its failures on a plan turned into skips naming the check that owns the defect, where a
   * deferral's condition holds; its held failures are settled (see `HeldFailures`). `facts`: what the observer
   * read of the answers. Returns the view the conditions read, for facts that follow from them.
   */
  resolveDeferrals(facts: RunFacts): DeferralView {
    if (this.resolved) throw new Error('the deferrals between checks are resolved once, at the end of the run');
    this.resolved = true;
    const view: DeferralView = {
      outcome: (id, plan) => this.outcomes.get(id)?.get(plan ?? ''),
      failedInRun: (id) => [...(this.outcomes.get(id)?.values() ?? [])].some((o) => o.failed > 0),
      countersOf: (plan) => facts.countersOf(plan),
      limiterOf: (plan) => facts.limiterOf(plan),
    };
    for (const id of DEFERRAL_ORDER) {
      for (const o of this.outcomes.get(id)?.values() ?? []) {
        const plain = deferralsOf(id, null).find((d) => holds(view, d, o.plan));
        if (plain !== undefined) this.excuse(id, o.plan, reasonOf(plain));
        const reason = plain !== undefined ? reasonOf(plain) : null;
        for (const { h } of (this.held.get(id) ?? []).filter((x) => x.plan === o.plan))
          this.settle(id, o.plan, h, reason ?? heldReason(view, id, o.plan, h));
      }
    }
    // What a check that declares no deferrals held, it fails.
    for (const [id, list] of this.held)
      if (!DEFERRAL_ORDER.includes(id)) for (const { plan, h } of list) this.settle(id, plan, h, null);
    this.held.clear();
    return view;
  }

  private settle(id: CheckId, plan: PlanName | null, h: HeldFailures, reason: string | null): void {
    if (reason !== null) {
      for (let i = 0; i < h.count; i++) this.skip(id, plan, reason);
      return;
    }
    for (const { ex, message } of h.first) this.fail(id, plan, message, ex);
    for (let i = h.first.length; i < h.count; i++) this.fail(id, plan, h.first[0]!.message);
  }

  /**
   * Record a measured fact (info checks, and facts reported alongside a verdict): only of a check whose info the
   * catalogue declares, with the key and the type its schema gives (src/report/check-info.ts).
   */
  info<I extends InfoCheckId, K extends InfoKey<I>>(
    id: I,
    plan: PlanName | null,
    key: K,
    value: InfoValue<I, K>,
  ): void {
    this.slot(id, plan).info[key] = value;
  }

  /** Record several facts of one check at once, as its schema declares them (absent ones left out). */
  facts<I extends InfoCheckId>(id: I, plan: PlanName | null, facts: CheckInfo<I>): void {
    const info = this.slot(id, plan).info;
    for (const [k, v] of Object.entries(facts)) if (v !== undefined) info[k] = v;
  }

  /** Pass or fail in one call. */
  judge(id: AnyCheckId, plan: PlanName | null, ok: boolean, message: () => string, ex?: Exchange): boolean {
    if (ok) this.pass(id, plan);
    else this.fail(id, plan, message(), ex);
    return ok;
  }

  all(): Outcome[] {
    return [...this.outcomes.values()].flatMap((m) => [...m.values()]);
  }

  /** Merge another ledger's outcomes into this one (used by parallel probes and by `petload merge`). */
  absorb(outcomes: readonly Outcome[]): void {
    for (const src of outcomes) {
      const o = this.slot(src.id, src.plan);
      o.passed += src.passed;
      o.failed += src.failed;
      o.skipped += src.skipped;
      for (const e of src.evidence) if (o.evidence.length < MAX_EVIDENCE) o.evidence.push(e);
      for (const r of src.skipReasons)
        if (o.skipReasons.length < MAX_REASONS && !o.skipReasons.includes(r)) o.skipReasons.push(r);
      Object.assign(o.info, src.info);
      if (src.cutShort !== undefined) o.cutShort = union(o.cutShort, src.cutShort);
    }
  }

  /** Free text only (message, request line, header values, body); the key label, tag and status are kept as they are. */
  private scrub(ev: Evidence): Evidence {
    return redactEvidence({ ...ev, message: cut(ev.message, MAX_MESSAGE) }, this.redact);
  }
}

/** The checks of both lists, each once, in the order first named. */
const union = (a: readonly string[] | undefined, b: readonly string[]): string[] => [...new Set([...(a ?? []), ...b])];

/** The reason held failures are skipped for, once the check's plain deferrals did not hold; null: none. */
function heldReason(view: DeferralView, id: CheckId, plan: PlanName | null, h: HeldFailures): string | null {
  const d = deferralsOf(id, h.kind).find((x) => holds(view, x, plan));
  return d === undefined ? null : reasonOf(d);
}

export function statusOf(o: Pick<Outcome, 'passed' | 'failed' | 'skipped'>): CheckStatus {
  if (o.failed > 0) return 'fail';
  if (o.passed > 0) return 'pass';
  return 'skip';
}

export function isCatalogueId(id: string): id is CheckId {
  return id in CATALOGUE;
}

/** How every renderer of a comparison words numbers and changes, so that they all say the same thing. */
import { formatMs } from '../outputs/format.js';
import type { ContractSide } from './schema.js';

export { formatMs };

/** A p-value: 0.034, 2.1e-9, or `< 1e-300`. */
export function formatP(p: number): string {
  if (p === 0) return '< 1e-300';
  if (p >= 0.001) return p.toFixed(3);
  return p.toExponential(1);
}

/** A signed change in milliseconds: `+12.3 ms`, `-0.42 ms`. */
export function formatChangeMs(ms: number): string {
  return `${ms >= 0 ? '+' : '-'}${formatMs(Math.abs(ms))} ms`;
}

/** A signed ratio as a percentage: `+45 %`, `-3.2 %`; `new` when there was nothing before. */
export function formatRatio(r: number | null): string {
  if (r === null) return 'new';
  const pct = r * 100;
  const abs = Math.abs(pct);
  const digits = abs >= 10 ? 0 : 1;
  return `${pct >= 0 ? '+' : '-'}${abs.toFixed(digits)} %`;
}

/** A share 0..1 as a percentage with one decimal. */
export function formatShare(x: number): string {
  return `${(x * 100).toFixed(1)} %`;
}

/** `free`, or `-` for a check judged without a plan. */
export function planWord(plan: string | null): string {
  return plan ?? '-';
}

/** `id [plan]`, or the bare id when judged without a plan. */
export function checkName(id: string, plan: string | null): string {
  return plan === null ? id : `${id} [${plan}]`;
}

/** The columns of a plan's contract as the renderers show it. */
export const CONTRACT_COLUMNS = ['limits', 'figures', 'limiter', 'retryAfter', 'ban'] as const;
export type ContractColumn = (typeof CONTRACT_COLUMNS)[number];
export const CONTRACT_HEADS: Record<ContractColumn, string> = {
  limits: 'Limit sent',
  figures: 'figures judged',
  limiter: 'limiter',
  retryAfter: 'Retry-After',
  ban: 'ban',
};

/** The checks of Retry-After's form and accuracy, named when they did not pass. */
const RETRY_AFTER_CHECKS = ['retry-after.present', 'retry-after.syntax', 'retry-after.plausible', 'retry-after.honest'];

function retryAfterWords(s: ContractSide): string {
  const r = s.retryAfter;
  const judged = RETRY_AFTER_CHECKS.flatMap((id) => {
    const status = s.checks[id];
    return status === undefined || status === 'pass' || status === 'absent' ? [] : [`${id.slice(12)} ${status}`];
  });
  const checks = judged.length > 0 ? `; ${judged.join(', ')}` : '';
  if (r.refusals === 0) return `no 429${checks}`;
  const range =
    r.minSeconds === null ? 'none usable' : `${r.minSeconds}..${r.maxSeconds} s, median ${r.medianSeconds} s`;
  return `${r.refusals} x 429: ${range}${r.unusable > 0 ? `, ${r.unusable} unusable` : ''}${checks}`;
}

/** A plan's contract in words, one text per column; `not judged` throughout for a run that did not judge it. */
export function contractWords(s: ContractSide | null): Record<ContractColumn, string> {
  if (s === null) return { limits: 'not judged', figures: '-', limiter: '-', retryAfter: '-', ban: '-' };
  const a = s.algorithm;
  return {
    limits: s.limitsSeen.length > 0 ? s.limitsSeen.join(', ') : 'none sent',
    figures: s.figures ? `${s.figures.perMinute}/min, ${s.figures.perDay}/day` : 'not recorded',
    limiter: a.shape ?? (a.reason ? `not named: ${a.reason}` : 'not named'),
    retryAfter: retryAfterWords(s),
    ban: s.ban
      ? `threshold ${String(s.ban.banThreshold ?? '?')}, status ${String(s.ban.banStatus ?? '?')}, ${String(s.ban.banDurationSeconds ?? '?')} s`
      : 'not measured',
  };
}

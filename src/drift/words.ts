/** How every renderer of a comparison words numbers and changes, so that they all say the same thing. */
import { formatMs } from '../outputs/format.js';

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

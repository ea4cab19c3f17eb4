/** The bench's Markdown table: one line per row of every figure. */
import type { Goal, Quantity, Row } from './figure.js';

function num(v: number): string {
  if (!Number.isFinite(v)) return String(v);
  const a = Math.abs(v);
  if (a >= 1000) return Math.round(v).toLocaleString('en-US');
  if (a >= 100) return v.toFixed(0);
  if (a >= 10) return v.toFixed(1);
  if (a >= 1) return v.toFixed(2);
  return v.toFixed(3);
}

function quantity(q: Quantity | null): string {
  return q === null ? '—' : `${num(q.value)} ${q.unit}`;
}

function score(r: Row): string {
  const s = r.score;
  if (s === null) return '—';
  if (s.kind === 'ratio') return s.value.toFixed(2);
  const sign = s.value > 0 ? '+' : '';
  return `${sign}${num(s.value)} ${s.unit}`;
}

function goal(g: Goal, unit: string): string {
  switch (g.kind) {
    case 'at-least':
      return `≥ ${g.value.toFixed(2)}`;
    case 'under':
      return `< ${g.value} ${unit}`;
    case 'at-most':
      return `within ${g.value}${g.unit}`;
    case 'within':
      return `within ±${g.value} ${g.unit}`;
    case 'report':
      return 'report';
  }
}

function verdict(pass: boolean | null): string {
  if (pass === null) return '—';
  return pass ? 'pass' : '**miss**';
}

export function markdownTable(rows: readonly Row[]): string {
  const lines = ['| figure | measured | peer | ratio/error | goal | pass/miss |', '|---|---|---|---|---|---|'];
  for (const r of rows) {
    const unit = r.score?.unit || r.measured.unit;
    lines.push(
      `| ${r.figure} | ${quantity(r.measured)} | ${quantity(r.peer)} | ${score(r)} | ${goal(r.goal, unit)} | ${verdict(r.pass)} |`,
    );
  }
  return lines.join('\n');
}

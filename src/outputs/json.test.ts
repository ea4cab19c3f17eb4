import { describe, expect, it } from 'vitest';
import { type Report, ReportSchema } from '../report/schema.js';
import { isPetloadError } from '../core/errors.js';
import { sampleReport } from '../testing/sample-report.js';
import { renderJson } from './json.js';

/** Maps whose order is part of the record (kept as given). */
const ORDERED_MAPS = new Set(['info', 'headers', 'variant']);

/** The same report with the keys of every object and unordered map in reverse order. */
function reversedKeys<T>(v: T): T {
  if (Array.isArray(v)) return v.map(reversedKeys) as T;
  if (v !== null && typeof v === 'object') {
    return Object.fromEntries(
      Object.entries(v)
        .reverse()
        .map(([k, x]) => [k, ORDERED_MAPS.has(k) ? x : reversedKeys(x)]),
    ) as T;
  }
  return v;
}

describe('renderJson', () => {
  const report = sampleReport();

  it('writes a document that parses with ReportSchema and equals the report', () => {
    const text = renderJson(report);
    expect(text.endsWith('}\n')).toBe(true);
    const parsed = ReportSchema.parse(JSON.parse(text));
    expect(parsed).toEqual(report);
  });

  it('is stable: the same report gives the same text whatever the order of its object keys and counts', () => {
    expect(renderJson(reversedKeys(report))).toBe(renderJson(report));
    const text = renderJson(report);
    expect(text.indexOf('"schemaVersion"')).toBeLessThan(text.indexOf('"tool"'));
    const counts = Object.keys((JSON.parse(text) as Report).totals.statusCounts);
    expect(counts).toEqual([...counts].sort((a, b) => Number(a) - Number(b)));
  });

  it('refuses a report that does not match the schema, naming the path', () => {
    const bad = { ...report, summary: { ...report.summary, failed: 'two' } } as unknown as Report;
    try {
      renderJson(bad);
      expect.unreachable();
    } catch (e) {
      expect(isPetloadError(e) && e.code).toBe('E_INTERNAL');
      expect((e as Error).message).toContain('summary.failed');
    }
  });
});

/** A report of a version before traffic classes (no `traffic`, no `probeOperations`) still reads and renders. */
import { describe, expect, it } from 'vitest';
import { sampleReport } from '../testing/sample-report.js';
import { renderConsoleSummary } from './console.js';
import { renderHtml } from './html.js';
import { renderJson } from './json.js';
import { renderMarkdown } from './markdown.js';
import { parseReport } from './read.js';

describe('a report of an older version, without traffic classes', () => {
  const doc = JSON.parse(renderJson(sampleReport())) as Record<string, unknown>;
  delete doc.traffic;
  delete doc.probeOperations;
  const old = parseReport(doc, 'old/report.json');

  it('reads, and says its latency is every request together', () => {
    expect(old.traffic).toBeUndefined();
    const text = renderConsoleSummary(old, { color: false, columns: 200 });
    expect(text).toContain('Latency of every request, load and probes together (a report of an older version)');
    expect(renderMarkdown(old)).toContain('### Latency of every request, load and probes together');
    expect(renderHtml(old)).toContain('Of every request, load and probes together');
  });
});

/** The report formats, keyed by their public names. Each renders the whole report to the text of one file. */
import type { Report } from '../report/schema.js';
import { renderHtml } from './html.js';
import { renderJson } from './json.js';
import { renderJunit } from './junit.js';
import { renderMarkdown } from './markdown.js';

export interface Output {
  readonly file: string;
  render(report: Report): string;
}

export const OUTPUTS = {
  json: { file: 'report.json', render: renderJson },
  junit: { file: 'junit.xml', render: renderJunit },
  markdown: { file: 'summary.md', render: renderMarkdown },
  html: { file: 'report.html', render: renderHtml },
} as const satisfies Record<string, Output>;

export type OutputName = keyof typeof OUTPUTS;
export const OUTPUT_NAMES = Object.keys(OUTPUTS) as OutputName[];

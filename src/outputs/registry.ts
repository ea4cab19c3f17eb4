/**
 * The report formats, keyed by their public names. Each renders the whole report to the text of one file; a folder
 * output renders it to the files of a folder of the report's (none when it has nothing to say).
 */
import type { Report } from '../report/schema.js';
import { renderHtml } from './html.js';
import { renderJson } from './json.js';
import { renderJunit } from './junit.js';
import { renderMarkdown } from './markdown.js';
import { REPRO_FOLDER, renderRepro } from './repro/render.js';

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

export interface FolderOutput {
  readonly folder: string;
  /** File name -> text. */
  render(report: Report): Readonly<Record<string, string>>;
}

export const FOLDER_OUTPUTS = {
  /** A reproduction script per failed check and plan that a replay can show (docs/reproductions.md). */
  repro: { folder: REPRO_FOLDER, render: renderRepro },
} as const satisfies Record<string, FolderOutput>;

export type FolderOutputName = keyof typeof FOLDER_OUTPUTS;
export const FOLDER_OUTPUT_NAMES = Object.keys(FOLDER_OUTPUTS) as FolderOutputName[];

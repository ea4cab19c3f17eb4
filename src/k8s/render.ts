/** Manifests as one multi-document YAML stream, with a comment header (what to do with it). */
import { stringify } from 'yaml';
import type { Manifest } from './manifests.js';

export function renderManifests(manifests: readonly Manifest[], header: readonly string[]): string {
  const comment = header.map((line) => (line === '' ? '#' : `# ${line}`)).join('\n');
  const docs = manifests.map((m) =>
    stringify(m, { lineWidth: 0, blockQuote: 'literal', aliasDuplicateObjects: false }).trimEnd(),
  );
  return `${comment}\n${docs.map((d) => `---\n${d}`).join('\n')}\n`;
}

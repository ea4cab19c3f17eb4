/**
 * A key echoed JSON-escaped by the target, as PHP (`\/`) and .NET (`\u002B`, `\u002F`) write it, in headers and
 * error bodies: a real run against a hostile loopback server writes no form of the key into report.json,
 * junit.xml, summary.md or report.html, nor on the console. The scan decodes every JSON escape (up to three
 * levels: a body quoted in report.json is escaped twice) and every XML/HTML character reference first.
 */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { REPORT_FILES } from '../testing/cli.js';
import { echoCredentialEscaped, jsonEscaped } from '../testing/hostile/behaviours.js';
import { runAgainstHostile } from '../testing/hostile/harness.js';
import { filesUnder, findSecret } from '../testing/secrets.js';

/** `sk_live_` and 24 hex digits, with a `/` and a `+` among them (the keys file allows both). */
const hex = (n: number) => randomBytes(n).toString('hex');
const KEY = `sk_live_${hex(4)}/${hex(4)}+${hex(4)}`;

/** `text` and its decodings: JSON escapes once, twice, three times, then XML/HTML character references. */
function decodings(text: string): string {
  const forms = [text];
  let t = text;
  for (let level = 0; level < 3; level++) {
    t = t
      .replace(/\\u([0-9a-fA-F]{4})/g, (_, h: string) => String.fromCharCode(Number.parseInt(h, 16)))
      .replace(/\\(["\\/bfnrt])/g, (_, c: string) => c);
    forms.push(t);
  }
  const entities = (s: string) =>
    s
      .replace(/&#x([0-9a-f]+);/gi, (_, h: string) => String.fromCodePoint(Number.parseInt(h, 16)))
      .replace(/&#(\d+);/g, (_, d: string) => String.fromCodePoint(Number(d)))
      .replaceAll('&quot;', '"')
      .replaceAll('&lt;', '<')
      .replaceAll('&gt;', '>')
      .replaceAll('&amp;', '&');
  return [...forms, ...forms.map(entities)].join('\n');
}

describe('a key echoed JSON-escaped by the target', () => {
  it('reaches no report file and no console line, in any form', async () => {
    expect(jsonEscaped(KEY, 'php')).toContain('\\/');
    expect(jsonEscaped(KEY, 'dotnet')).toContain('\\u002B');
    const run = await runAgainstHostile(echoCredentialEscaped(), [], KEY);
    expect(run.files).toEqual([...REPORT_FILES]);
    expect(findSecret(decodings(`${run.cli.stdout}\n${run.cli.stderr}`), [KEY])).toBeNull();
    for (const f of filesUnder(run.dir)) expect(findSecret(decodings(f.text), [KEY]), f.path).toBeNull();
    // The echoes did reach the evidence, in both forms, whole and cut: the scan above had something to find.
    const evidence = run.report.checks.flatMap((c) => c.byPlan.flatMap((p) => p.evidence));
    const bodies = evidence.flatMap((e) => e.body ?? []);
    const label = run.report.keys[0]!.label;
    expect(bodies.some((b) => b.includes(` you sent Bearer [key ${label}]"`))).toBe(true);
    expect(bodies.some((b) => b.endsWith(` you sent Bearer [key ${label}]…`))).toBe(true);
  });
});

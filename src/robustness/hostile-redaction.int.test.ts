/**
 * A key echoed JSON-escaped by the target, as PHP (`\/`) and .NET (`\u002B`, `\u002F`) write it, in headers and
 * error bodies, and one that echoes it percent-encoded, as HTML character references, JSON-escaped and in base64:
 * a real run against a hostile loopback server writes no form of the key into report.json, junit.xml, summary.md,
 * report.html, the journal or the repro/ scripts, nor on the console. The scan (src/testing/secrets.ts) decodes
 * every form first.
 */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { REPORT_FILES } from '../testing/cli.js';
import {
  echoCredentialEncoded,
  echoCredentialEscaped,
  encodedForms,
  jsonEscaped,
} from '../testing/hostile/behaviours.js';
import { runAgainstHostile } from '../testing/hostile/harness.js';
import { filesUnder, findSecret } from '../testing/secrets.js';

/** `sk_live_` and 24 hex digits, with a `/` and a `+` among them (the keys file allows both). */
const hex = (n: number) => randomBytes(n).toString('hex');
const KEY = `sk_live_${hex(4)}/${hex(4)}+${hex(4)}`;

describe('a key echoed JSON-escaped by the target', () => {
  it('reaches no report file and no console line, in any form', async () => {
    expect(jsonEscaped(KEY, 'php')).toContain('\\/');
    expect(jsonEscaped(KEY, 'dotnet')).toContain('\\u002B');
    const run = await runAgainstHostile(echoCredentialEscaped(), [], KEY);
    expect(run.files).toEqual([...REPORT_FILES]);
    expect(findSecret(`${run.cli.stdout}\n${run.cli.stderr}`, [KEY])).toBeNull();
    for (const f of filesUnder(run.dir)) expect(findSecret(f.text, [KEY]), f.path).toBeNull();
    // The echoes did reach the evidence, in both forms, whole and cut: the scan above had something to find.
    const evidence = run.report.checks.flatMap((c) => c.byPlan.flatMap((p) => p.evidence));
    const bodies = evidence.flatMap((e) => e.body ?? []);
    const label = run.report.keys[0]!.label;
    expect(bodies.some((b) => b.includes(` you sent Bearer [key ${label}]"`))).toBe(true);
    expect(bodies.some((b) => b.endsWith(` you sent Bearer [key ${label}]…`))).toBe(true);
  });
});

describe('a key echoed percent-encoded, as HTML character references, JSON-escaped, in base64', () => {
  // `&` and `/` and `+`: characters every encoding writes differently.
  // 26 characters: every error body the target writes is shorter than the evidence's excerpt.
  const KEY2 = `sk_${hex(3)}/${hex(3)}+${hex(2)}&${hex(2)}`;

  it('reaches no report file, journal, reproduction script or console line, in any form', async () => {
    const forms = encodedForms(KEY2);
    // The scan finds each form: a test that could not fail would prove nothing.
    for (const [name, form] of Object.entries(forms)) {
      expect(form, name).not.toContain(KEY2);
      expect(findSecret(`x ${form} y`, [KEY2]), name).not.toBeNull();
    }
    const run = await runAgainstHostile(echoCredentialEncoded(), [], KEY2);
    expect(run.files).toEqual([...REPORT_FILES]);
    expect(findSecret(`${run.cli.stdout}\n${run.cli.stderr}`, [KEY2])).toBeNull();
    const files = filesUnder(run.dir);
    expect(files.map((f) => f.path).some((p) => p.endsWith('journal.ndjson'))).toBe(true);
    for (const f of files) expect(findSecret(f.text, [KEY2]), f.path).toBeNull();
    // Every form reached the evidence, hidden: the scan above had something to find.
    const bodies = run.report.checks.flatMap((c) => c.byPlan.flatMap((p) => p.evidence.flatMap((e) => e.body ?? [])));
    for (const name of Object.keys(forms)) {
      const echoed = new RegExp(`${name}: [A-Za-z0-9+/]*\\[key `);
      expect(
        bodies.some((b) => echoed.test(b)),
        name,
      ).toBe(true);
    }
  });
});

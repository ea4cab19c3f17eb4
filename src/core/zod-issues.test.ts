import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { describeIssues, didYouMean, formatIssues, formatPath } from './zod-issues.js';

describe('didYouMean', () => {
  it.each([
    ['plan', ['plans', 'probes'], 'plans'],
    ['Plans', ['plans'], 'plans'],
    ['enforse', ['enforce', 'restore'], 'enforce'],
    ['xyz', ['plans', 'probes'], undefined],
    ['a', [], undefined],
  ])('%j among %j is %j', (word, candidates, hint) => {
    expect(didYouMean(word, candidates)).toBe(hint);
  });
});

describe('formatPath', () => {
  it.each([
    [[], '(top level)'],
    [['load', 'phases', 1, 'rate'], 'load.phases[1].rate'],
    [['keys', 0], 'keys[0]'],
  ])('%j is %s', (path, text) => {
    expect(formatPath(path)).toBe(text);
  });
});

const Entry = z.strictObject({
  key: z.string().min(8, 'a key has at least 8 characters'),
  plan: z.enum(['free', 'pro']),
});
const Doc = z.strictObject({
  keys: z.array(Entry).min(1, 'at least one key'),
  shapes: z
    .array(
      z.discriminatedUnion('kind', [
        z.strictObject({ kind: z.literal('circle'), radius: z.number().positive() }),
        z.strictObject({ kind: z.literal('square'), side: z.number().positive() }),
      ]),
    )
    .optional(),
  tags: z.record(z.string(), z.strictObject({ colour: z.string() })).optional(),
  limit: z.union([z.number().int().min(1), z.literal('none')]).optional(),
});

function lines(input: unknown, mask?: (path: readonly PropertyKey[]) => boolean, withSchema = true): string[] {
  const res = Doc.safeParse(input);
  if (res.success) throw new Error('expected a failure');
  return formatIssues(res.error, input, mask, withSchema ? Doc : undefined);
}

describe('formatIssues', () => {
  it('never shows a masked value, and keeps custom messages', () => {
    const mask = (p: readonly PropertyKey[]) => p[p.length - 1] === 'key';
    expect(lines({ keys: [{ key: 'short', plan: 'fre' }] }, mask)).toEqual([
      'keys[0].key: a key has at least 8 characters, found a string of 5 characters (not shown)',
      'keys[0].plan: expected one of free, pro, found "fre" (did you mean "free"?)',
    ]);
    expect(lines({ keys: [] })).toEqual(['keys: at least one key, found a list']);
  });

  it('names unknown keys, with the accepted keys and a did-you-mean when it knows the schema', () => {
    const input = { keys: [{ key: 'abcdefgh', plan: 'free', plna: 1 }], shape: [] };
    expect(lines(input)).toEqual([
      'keys[0].plna: expected one of the keys key, plan, found unknown key "plna"',
      'shape: expected one of the keys keys, shapes, tags, limit, found unknown key "shape" (did you mean "shapes"?)',
    ]);
    expect(lines(input, undefined, false)).toEqual(['keys[0].plna: unknown key "plna"', 'shape: unknown key "shape"']);
  });

  it('follows discriminated unions and records to the keys they accept', () => {
    const input = {
      keys: [{ key: 'abcdefgh', plan: 'pro' }],
      shapes: [
        { kind: 'circle', raduis: 1 },
        { kind: 'sqare', side: 2 },
        { kind: 'square', side: 0 },
      ],
      tags: { a: { color: 'red' } },
    };
    expect(lines(input)).toEqual([
      'shapes[0].radius: expected a number, found nothing (the key is missing)',
      'shapes[0].raduis: expected one of the keys kind, radius, found unknown key "raduis" (did you mean "radius"?)',
      'shapes[1].kind: expected one of circle, square, found "sqare" (did you mean "square"?)',
      'shapes[2].side: expected a number > 0, found number 0',
      'tags.a.colour: expected a string, found nothing (the key is missing)',
      'tags.a.color: expected one of the keys colour, found unknown key "color" (did you mean "colour"?)',
    ]);
  });

  it('reports the union branch that was meant, or what the union accepts', () => {
    const base = { keys: [{ key: 'abcdefgh', plan: 'pro' }] };
    expect(lines({ ...base, limit: 0 })).toEqual(['limit: expected a number >= 1, found number 0']);
    expect(lines({ ...base, limit: 'none!' })).toEqual([
      'limit: expected a number or none, found "none!" (did you mean "none"?)',
    ]);
    expect(lines({ ...base, limit: true })).toEqual(['limit: expected a number or none, found boolean true']);
  });

  it('describes each issue with its full path and whether it is about a key or a value', () => {
    const input = { keys: [{ key: 'abcdefgh', plan: 'pro', x: 1 }] };
    const res = Doc.safeParse(input);
    expect(res.success).toBe(false);
    expect(describeIssues(res.error!, input, { schema: Doc })).toEqual([
      { path: ['keys', 0, 'x'], at: 'key', text: 'expected one of the keys key, plan, found unknown key "x"' },
    ]);
  });
});

import { describe, expect, it } from 'vitest';
import { createRedactor } from '../config/keys-file.js';
import { parseKeys } from '../config/keys-file.js';
import { recognisableKey } from '../testing/secrets.js';
import {
  collectNotes,
  createRunEvents,
  RUN_EVENT_TYPES,
  type RunEvent,
  type RunEventOf,
  type RunEventType,
} from './run-events.js';

const secret = recognisableKey('pro');
const [key] = parseKeys({ keys: [{ key: secret, plan: 'pro' }] }, 'test');
const label = key!.label;
const progress = { probe: 'enforce', plan: 'pro' as const, state: 'start' as const, index: 1, total: 3, perPlan: [] };
const stats = { phase: 'phase 1', elapsedMs: 1, totalMs: 2, sent: 3, rate: 4, s2xx: 1, s4xx: 1, s429: 1, p99Ms: 5 };

/** One event of each kind, the key in every free-text field it has and the key's label where it names a key. */
const SAMPLES: { readonly [T in RunEventType]: RunEventOf<T> } = {
  started: {
    type: 'started',
    scenario: 'compliance',
    target: 'http://127.0.0.1:1',
    plans: ['pro'],
    keys: [{ label, plan: 'pro' }],
    at: 'now',
  },
  exchange: {
    type: 'exchange',
    key: label,
    plan: 'pro',
    operation: 'listPets',
    status: 200,
    latencyMs: 1,
    serviceMs: 1,
    remaining: 5,
    at: 1,
  },
  check: {
    type: 'check',
    id: 'ratelimit.enforced',
    plan: 'pro',
    status: 'fail',
    counts: { passed: 0, failed: 1, skipped: 0 },
    message: `Authorization: Bearer ${secret} was echoed`,
  },
  planned: {
    type: 'planned',
    durationMs: 60_000,
    scale: 60,
    steps: [{ probe: 'enforce', plan: 'pro', at: 0, ends: 1 }],
  },
  keys: {
    type: 'keys',
    keys: [{ label, plan: 'pro', sent: 3, refused: 1, heldBack: true, suspectedBan: false }],
  },
  probe: { type: 'probe', progress },
  phase: { type: 'phase', progress: stats },
  note: { type: 'note', text: `a note quoting ${secret}` },
  log: { type: 'log', text: `a line quoting ${secret}`, notice: true },
  ended: { type: 'ended', verdict: 'aborted', exitCode: 3, reason: `the target said ${secret}`, files: null },
};

describe('the run event stream', () => {
  it('hands no listener a key, whatever kind of event carries it, and changes nothing else', () => {
    const events = createRunEvents(createRedactor([key!]));
    const got: RunEvent[] = [];
    for (const type of RUN_EVENT_TYPES) events.on(type, (e) => got.push(e));
    for (const type of RUN_EVENT_TYPES) events.emit(SAMPLES[type]);
    expect(got.map((e) => e.type)).toEqual(RUN_EVENT_TYPES);
    for (const e of got) {
      expect(JSON.stringify(e), e.type).not.toContain(secret);
      // Redaction replaces the key and only the key: every other field is what was emitted.
      const sent = JSON.stringify(SAMPLES[e.type]).replaceAll(secret, '');
      expect(JSON.stringify(e).replace(/\[key [^\]]*\]/g, ''), e.type).toBe(sent);
    }
  });

  it('calls only the listeners of an event type, in order, and stops calling one that unsubscribed', () => {
    const events = createRunEvents();
    const seen: string[] = [];
    const off = events.on('note', (e) => seen.push(`a:${e.text}`));
    events.on('note', (e) => seen.push(`b:${e.text}`));
    events.on('log', (e) => seen.push(`log:${e.text}`));
    expect(events.wants('exchange')).toBe(false);
    events.emit({ type: 'note', text: '1' });
    off();
    events.emit({ type: 'note', text: '2' });
    expect(seen).toEqual(['a:1', 'b:1', 'b:2']);
  });

  it('collects the notes in order', () => {
    const events = createRunEvents();
    const notes = collectNotes(events);
    events.emit({ type: 'note', text: 'one' });
    events.emit({ type: 'log', text: 'not a note', notice: false });
    events.emit({ type: 'note', text: 'two' });
    expect(notes.all()).toEqual(['one', 'two']);
  });
});

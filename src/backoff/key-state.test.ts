import { describe, expect, it } from 'vitest';
import { buildExchange, testKey } from '../testing/exchange-builder.js';
import { KeyStates } from './key-state.js';

describe("a key's refusals as the key states keep them", () => {
  it('records each 429 with the one before it and the answers to requests sent after that one had come back', () => {
    const key = testKey('free');
    const states = new KeyStates([key]);
    const answer = (sent: number, status: number) =>
      buildExchange({ status, timing: { sent, done: sent + 50 }, headers: { 'retry-after': '60' } });
    const first = answer(0, 429);
    // A herd sent at 0: its 429 came back first, its accepted answers after; none of them was sent after the 429.
    states.noteResponse(key, first);
    for (let i = 0; i < 5; i++) states.noteResponse(key, answer(0, 200));
    // Two requests sent once the 429 had come back, then a 429 again.
    states.noteResponse(key, answer(60_000, 200));
    states.noteResponse(key, answer(60_100, 200));
    const again = answer(60_200, 429);
    states.noteResponse(key, again);
    expect(states.get(key).refusal).toEqual({ ex: again, before: first, answeredBetween: 2 });
    expect(states.get(key).answeredSinceRefusal).toBe(0);
  });
});

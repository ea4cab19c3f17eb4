import { describe, expect, it } from 'vitest';
import { formatDuration, listWithin } from './format.js';

describe('listWithin', () => {
  it('shortens by whole entries, says how many more, and always shows the first', () => {
    const items = ['free#1 (…ey-1)', 'pro#1 (…ey-1)', 'business#1 (…ey-1)'];
    expect(listWithin(items)).toBe(items.join(', '));
    expect(listWithin(items, 1000)).toBe(items.join(', '));
    expect(listWithin(items, 40)).toBe('free#1 (…ey-1), pro#1 (…ey-1) and 1 more');
    expect(listWithin(items, 30)).toBe('free#1 (…ey-1) and 2 more');
    expect(listWithin(items, 5)).toBe('free#1 (…ey-1) and 2 more');
    expect(listWithin([], 5)).toBe('');
  });
});

describe('formatDuration', () => {
  it('rounds to whole seconds before it splits minutes: never "1 min 60 s"', () => {
    expect(formatDuration(59_940)).toBe('59.9 s');
    expect(formatDuration(59_960)).toBe('1 min 0 s');
    expect(formatDuration(119_600)).toBe('2 min 0 s');
    expect(formatDuration(65_000)).toBe('1 min 5 s');
    expect(formatDuration(3_600_000)).toBe('1 h 0 min');
  });
});

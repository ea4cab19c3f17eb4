import { describe, expect, it } from 'vitest';
import { listWithin } from './format.js';

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

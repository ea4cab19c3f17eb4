import { describe, expect, it } from 'vitest';
import { CleanupStack, withCleanup } from './cleanup.js';

describe('CleanupStack', () => {
  it('closes last pushed first, once', async () => {
    const closed: string[] = [];
    const stack = new CleanupStack();
    stack.defer(() => closed.push('target'));
    const journal = stack.use({ close: async () => closed.push('journal') });
    stack.defer(async () => closed.push('run'));
    expect(journal).toBeDefined();
    await stack.close();
    await stack.close();
    expect(closed).toEqual(['run', 'journal', 'target']);
    expect(() => stack.defer(() => {})).toThrow('defer after close');
  });

  it('runs every step when one throws, then throws the first error', async () => {
    const closed: string[] = [];
    const stack = new CleanupStack();
    stack.defer(() => closed.push('target'));
    stack.defer(() => {
      throw new Error('journal');
    });
    stack.defer(() => {
      throw new Error('run');
    });
    await expect(stack.close()).rejects.toThrow('run');
    expect(closed).toEqual(['target']);
  });
});

describe('withCleanup', () => {
  it('closes after the body returns, and gives its value', async () => {
    const closed: string[] = [];
    const value = await withCleanup(async (stack) => {
      stack.defer(() => closed.push('a'));
      return 42;
    });
    expect(value).toBe(42);
    expect(closed).toEqual(['a']);
  });

  it("closes when the body throws, and the body's error wins over the closing's", async () => {
    const closed: string[] = [];
    const run = withCleanup(async (stack) => {
      stack.defer(() => closed.push('target'));
      stack.defer(() => {
        throw new Error('close failed');
      });
      throw new Error('the run failed');
    });
    await expect(run).rejects.toThrow('the run failed');
    expect(closed).toEqual(['target']);
  });
});

import { describe, expect, it } from 'vitest';
import { realClock } from '../core/clock.js';
import { isRemote, targetOf } from './run-target.js';

describe('targetOf', () => {
  it('gives the target of the new form as it is', () => {
    const target = { kind: 'external', url: 'http://127.0.0.1:1/v1', treatAsRemote: true } as const;
    expect(targetOf({ target })).toBe(target);
  });

  it('reads the flat form of earlier versions: a URL and its settings are an external target', () => {
    expect(targetOf({ target: 'http://127.0.0.1:1/v1', targetClock: realClock, allowQuotaExhaustion: true })).toEqual({
      kind: 'external',
      url: 'http://127.0.0.1:1/v1',
      clock: realClock,
      allowQuotaExhaustion: true,
    });
  });

  it('reads the flat form of earlier versions: no URL is the embedded server, with its settings and headers', () => {
    const headers = [{ name: 'x-a', value: 'b', secret: false }];
    expect(targetOf({ faults: ['flaky'], timeScale: 10, countErrors: true, network: { headers } })).toEqual({
      kind: 'embedded',
      faults: ['flaky'],
      timeScale: 10,
      countErrors: true,
      headers,
    });
    expect(targetOf({})).toEqual({ kind: 'embedded' });
  });
});

describe('isRemote', () => {
  it('is an external target off this machine, or one marked remote; never the embedded server', () => {
    expect(isRemote({ kind: 'embedded' })).toBe(false);
    expect(isRemote({ kind: 'external', url: 'http://127.0.0.1:8080/v1' })).toBe(false);
    expect(isRemote({ kind: 'external', url: 'http://[::1]:8080/v1' })).toBe(false);
    expect(isRemote({ kind: 'external', url: 'http://127.0.0.1:8080/v1', treatAsRemote: true })).toBe(true);
    expect(isRemote({ kind: 'external', url: 'https://staging.example.com/v1' })).toBe(true);
  });
});

import { describe, expect, it } from 'vitest';
import { PROBE_REGISTRY, probesInOrder } from './index.js';
import { PROBE_NAMES } from './names.js';

describe('the probe registry', () => {
  it('files each probe under its own name', () => {
    for (const [name, probe] of Object.entries(PROBE_REGISTRY)) expect(probe.name).toBe(name);
  });

  it('has a probe for every name and nothing else', () => {
    expect(Object.keys(PROBE_REGISTRY).sort()).toEqual([...PROBE_NAMES].sort());
  });

  it('gives the named probes in the order of a compliance run, whatever the order asked', () => {
    expect(probesInOrder(['ban', 'what-counts', 'auth', 'enforce']).map((p) => p.name)).toEqual([
      'auth',
      'enforce',
      'what-counts',
      'ban',
    ]);
  });
});

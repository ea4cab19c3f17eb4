import { describe, expect, it } from 'vitest';
import { cpuOverWindow, processCpuMs, sampleCpu } from './cpu-sampler.js';

describe('cpuOverWindow', () => {
  const samples = [
    { at: 1000, cpuMs: 0 },
    { at: 2000, cpuMs: 900 },
    { at: 3000, cpuMs: 1200 },
  ];

  it('works out the CPU time and share between two instants, between samples too', () => {
    expect(cpuOverWindow(samples, 1000, 2000)).toEqual({ cpuMs: 900, share: 0.9 });
    const r = cpuOverWindow(samples, 1500, 2500)!;
    expect(r.cpuMs).toBeCloseTo(600);
    expect(r.share).toBeCloseTo(0.6);
  });

  it('reads the share over the part the samples cover, and gives none when they cover too little', () => {
    // The last sample came 100 ms before the window's end: the share is that of the 1900 ms covered.
    const r = cpuOverWindow(samples.slice(0, 2), 1000, 2100)!;
    expect(r.share).toBeCloseTo(0.9);
    expect(r.cpuMs).toBeCloseTo(0.9 * 1100);
    expect(cpuOverWindow(samples, 2500, 6000)).toBeNull();
    expect(cpuOverWindow(samples.slice(0, 1), 1000, 2000)).toBeNull();
  });
});

describe('processCpuMs and sampleCpu', () => {
  it.runIf(process.platform === 'linux')('read the CPU time of a running process from /proc', async () => {
    const sampler = sampleCpu(process.pid, 5);
    // 50 ms of CPU (not of the clock: the machine may be busy), then a pause for a sample after it.
    const from = process.cpuUsage();
    while (process.cpuUsage(from).user < 50_000) Math.sqrt(Math.random());
    await new Promise((resolve) => setTimeout(resolve, 20));
    const samples = sampler.stop();
    expect(samples.length).toBeGreaterThan(2);
    expect(samples.at(-1)!.cpuMs).toBeGreaterThan(samples[0]!.cpuMs);
    expect(processCpuMs(process.pid)).toBeGreaterThanOrEqual(samples.at(-1)!.cpuMs);
    expect(processCpuMs(2 ** 22 + 12345)).toBeNull();
  });
});

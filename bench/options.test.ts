import { describe, expect, it } from 'vitest';
import { FIGURE_IDS } from './figure.js';
import { DEFAULT_OPTIONS, parseOptions, UsageError } from './options.js';

describe('bench options', () => {
  it('defaults to every figure, pinned, reports under reports/bench', () => {
    expect(parseOptions([])).toEqual(DEFAULT_OPTIONS);
    expect(DEFAULT_OPTIONS.only).toEqual(FIGURE_IDS);
  });

  it('takes --only repeated or comma-separated, keeping the bench order', () => {
    expect(parseOptions(['--only', 'memory,saturate', '--only', 'latency'])?.only).toEqual([
      'saturate',
      'latency',
      'memory',
    ]);
  });

  it('runs the real-clock figure only when asked for, alone unless --only names others', () => {
    expect(parseOptions([])?.realClock).toBe(false);
    expect(parseOptions(['--real-clock'])).toMatchObject({ realClock: true, only: [] });
    expect(parseOptions(['--real-clock', '--only', 'memory'])).toMatchObject({ realClock: true, only: ['memory'] });
  });

  it('lengthens and narrows runs', () => {
    const o = parseOptions([
      '--duration',
      '10',
      '--rounds',
      '3',
      '--warmup',
      '0',
      '--exchanges',
      '2000',
      '--out',
      '/tmp/x',
      '--no-pin',
    ]);
    expect(o).toMatchObject({ durationS: 10, rounds: 3, warmupS: 0, exchanges: 2000, outDir: '/tmp/x', pin: false });
  });

  it('serves the throughput rounds from nginx unless --peer-server node', () => {
    expect(parseOptions([])?.peerServer).toBe('nginx');
    expect(parseOptions(['--peer-server', 'node'])?.peerServer).toBe('node');
  });

  it.each([
    [['--peer-server', 'apache'], /--peer-server expects one of nginx, node, found "apache"/],
    [['--only', 'speed'], /unknown figure "speed"/],
    [['--duration', '0'], /--duration expects a positive number, found "0"/],
    [['--rounds', '2.5'], /--rounds expects a positive integer/],
    [['--warmup=-1'], /--warmup expects a non-negative number/],
    [['--bogus'], /bogus/],
  ])('refuses %j', (argv, message) => {
    expect(() => parseOptions(argv)).toThrow(UsageError);
    expect(() => parseOptions(argv)).toThrow(message);
  });

  it('answers --help with null (the caller prints the usage)', () => {
    expect(parseOptions(['--help'])).toBeNull();
  });
});

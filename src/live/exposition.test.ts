import { describe, expect, it } from 'vitest';
import { type Family, formatValue, histogramSamples, renderExposition } from './exposition.js';

const counter: Family = {
  name: 'x_requests',
  help: 'Requests "sent", a\\b\nnext',
  type: 'counter',
  samples: [{ suffix: '_total', labels: { path: 'a"b\\c\nd' }, value: 3 }],
};
const histogram: Family = {
  name: 'x_seconds',
  help: 'Latency',
  type: 'histogram',
  samples: histogramSamples([0.1, 1], [2, 0], 0.35, 3, { op: 'list' }),
};

describe('the exposition', () => {
  it('writes the Prometheus text format: counters named with _total, blocks apart, escaped labels and help', () => {
    expect(renderExposition([counter, histogram], 'prometheus')).toBe(
      [
        '# HELP x_requests_total Requests "sent", a\\\\b\\nnext',
        '# TYPE x_requests_total counter',
        'x_requests_total{path="a\\"b\\\\c\\nd"} 3',
        '',
        '# HELP x_seconds Latency',
        '# TYPE x_seconds histogram',
        'x_seconds_bucket{le="0.1",op="list"} 2',
        'x_seconds_bucket{le="1",op="list"} 2',
        'x_seconds_bucket{le="+Inf",op="list"} 3',
        'x_seconds_sum{op="list"} 0.35',
        'x_seconds_count{op="list"} 3',
        '',
      ].join('\n'),
    );
  });

  it('writes OpenMetrics: the counter family without _total, its sample with it, quotes escaped in help, # EOF', () => {
    expect(renderExposition([counter], 'openmetrics')).toBe(
      [
        '# HELP x_requests Requests \\"sent\\", a\\\\b\\nnext',
        '# TYPE x_requests counter',
        'x_requests_total{path="a\\"b\\\\c\\nd"} 3',
        '# EOF',
        '',
      ].join('\n'),
    );
  });

  it('writes a family with no samples as its two comment lines, and special values by name', () => {
    expect(renderExposition([{ name: 'g', help: 'h', type: 'gauge', samples: [] }], 'prometheus')).toBe(
      '# HELP g h\n# TYPE g gauge\n',
    );
    expect([Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, 0.25, 7].map(formatValue)).toEqual([
      'NaN',
      '+Inf',
      '-Inf',
      '0.25',
      '7',
    ]);
  });
});

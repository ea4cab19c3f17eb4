/**
 * The text of a metrics scrape, in the two formats Prometheus reads: its own text format (0.0.4) and OpenMetrics
 * 1.0. Families of counters, gauges and histograms, written from plain numbers: no registry, no state.
 *
 * The two differ where it matters here:
 * - a counter's family is named without `_total` in OpenMetrics (its sample keeps it), with it in the text format;
 * - OpenMetrics escapes `"` in HELP text too, and ends with `# EOF`.
 */

export const OPENMETRICS_CONTENT_TYPE = 'application/openmetrics-text; version=1.0.0; charset=utf-8';
export const PROMETHEUS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

export type ExpositionFormat = 'openmetrics' | 'prometheus';

/** One sample: its name's suffix after the family name (`_bucket`, `_sum`, `_count`, `_total`, or ''), labels, value. */
export interface Sample {
  readonly suffix: '' | '_total' | '_bucket' | '_sum' | '_count';
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

export interface Family {
  /** The family's name, without `_total` for a counter. */
  readonly name: string;
  readonly help: string;
  readonly type: 'counter' | 'gauge' | 'histogram';
  readonly samples: readonly Sample[];
}

/** Whether an Accept header asks for OpenMetrics (with a q above 0). */
export function wantsOpenMetrics(accept: string | undefined): boolean {
  if (accept === undefined) return false;
  return accept.split(',').some((range) => {
    const [type, ...params] = range.split(';').map((s) => s.trim().toLowerCase());
    if (type !== 'application/openmetrics-text') return false;
    const q = params.find((p) => p.startsWith('q='));
    return q === undefined || Number(q.slice(2)) > 0;
  });
}

const escapeLabel = (v: string) => v.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');
const escapeHelp = (v: string, format: ExpositionFormat) => {
  const s = v.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');
  return format === 'openmetrics' ? s.replace(/"/g, '\\"') : s;
};

/** A number as both formats write it: integers plainly, +Inf, -Inf and NaN by name. */
export function formatValue(n: number): string {
  if (Number.isNaN(n)) return 'NaN';
  if (n === Number.POSITIVE_INFINITY) return '+Inf';
  if (n === Number.NEGATIVE_INFINITY) return '-Inf';
  return String(n);
}

function sampleLine(family: Family, s: Sample): string {
  const labels = Object.entries(s.labels);
  const text = labels.length === 0 ? '' : `{${labels.map(([k, v]) => `${k}="${escapeLabel(v)}"`).join(',')}}`;
  return `${family.name}${s.suffix}${text} ${formatValue(s.value)}`;
}

/** The scrape's text in `format`, one block per family in the order given. */
export function renderExposition(families: readonly Family[], format: ExpositionFormat): string {
  const blocks = families.map((f) => {
    const name = f.type === 'counter' && format === 'prometheus' ? `${f.name}_total` : f.name;
    return [
      `# HELP ${name} ${escapeHelp(f.help, format)}`,
      `# TYPE ${name} ${f.type}`,
      ...f.samples.map((s) => sampleLine(f, s)),
    ].join('\n');
  });
  return format === 'openmetrics' ? `${blocks.join('\n')}\n# EOF\n` : `${blocks.join('\n\n')}\n`;
}

/** The samples of a histogram from per-bucket counts (not cumulative): `_bucket` per bound and +Inf, `_sum`, `_count`. */
export function histogramSamples(
  bounds: readonly number[],
  perBucket: readonly number[],
  sum: number,
  count: number,
  labels: Readonly<Record<string, string>>,
): Sample[] {
  const out: Sample[] = [];
  let cumulative = 0;
  bounds.forEach((le, i) => {
    cumulative += perBucket[i] ?? 0;
    out.push({ suffix: '_bucket', labels: { le: formatValue(le), ...labels }, value: cumulative });
  });
  out.push({ suffix: '_bucket', labels: { le: '+Inf', ...labels }, value: count });
  out.push({ suffix: '_sum', labels, value: sum });
  out.push({ suffix: '_count', labels, value: count });
  return out;
}

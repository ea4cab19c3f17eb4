import { describe, expect, it } from 'vitest';
import { createRunEvents, type RunEvent } from '../core/run-events.js';
import {
  createRunMetrics,
  OPENMETRICS_CONTENT_TYPE,
  PROMETHEUS_CONTENT_TYPE,
  startMetrics,
  wantsOpenMetrics,
} from './metrics.js';

/** What Prometheus 2.x sends. */
const PROMETHEUS_ACCEPT =
  'application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1';

const exchange = (status: number | null, latencyMs = 20): RunEvent => ({
  type: 'exchange',
  key: 'pro#1',
  plan: 'pro',
  operation: 'listPets',
  status,
  latencyMs,
  serviceMs: latencyMs,
  remaining: null,
  at: 0,
});

/** The samples of an exposition, name{labels} -> value, comments left out. */
function samples(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const at = line.lastIndexOf(' ');
    out.set(line.slice(0, at), Number(line.slice(at + 1)));
  }
  return out;
}

describe('the run metrics', () => {
  it('asks for OpenMetrics only when Accept names it with a q above 0', () => {
    expect(wantsOpenMetrics(PROMETHEUS_ACCEPT)).toBe(true);
    expect(wantsOpenMetrics('application/openmetrics-text; version=1.0.0; q=0')).toBe(false);
    expect(wantsOpenMetrics('text/plain;version=0.0.4')).toBe(false);
    expect(wantsOpenMetrics('*/*')).toBe(false);
    expect(wantsOpenMetrics(undefined)).toBe(false);
  });

  it('counts requests, latency, checks, keys and the phase from the events, in both formats', async () => {
    const events = createRunEvents();
    const metrics = createRunMetrics(events);
    const before = samples((await metrics.render(undefined)).body);
    expect(before.get('petload_run_phase{phase="starting"}')).toBe(1);
    expect(before.get('petload_checks{status="failed"}')).toBe(0);
    expect(before.get('petload_keys{state="suspected_banned"}')).toBe(0);

    events.emit({ type: 'started', scenario: 's', target: 't', plans: ['pro'], keys: [], at: '' });
    for (const e of [exchange(200), exchange(200, 3000), exchange(429), exchange(null)]) events.emit(e);
    events.emit({
      type: 'exchange',
      key: null,
      plan: null,
      operation: null,
      status: 401,
      latencyMs: 1,
      serviceMs: 1,
      remaining: null,
      at: 0,
    });
    const counts = { passed: 0, failed: 1, skipped: 0 };
    events.emit({ type: 'check', id: 'auth.challenge', plan: 'pro', status: 'fail', counts });
    events.emit({ type: 'check', id: 'ratelimit.enforced', plan: 'pro', status: 'pass', counts });
    const key = { label: 'pro#1', plan: 'pro' as const, sent: 4, refused: 1, heldBack: true, suspectedBan: false };
    events.emit({ type: 'keys', keys: [key, { ...key, label: 'pro#2', refused: 0, heldBack: false }] });

    const text = await metrics.render('text/plain');
    expect(text.contentType).toBe(PROMETHEUS_CONTENT_TYPE);
    const s = samples(text.body);
    expect(s.get('petload_requests_total{plan="pro",operation="listPets",status="200"}')).toBe(2);
    expect(s.get('petload_requests_total{plan="pro",operation="listPets",status="429"}')).toBe(1);
    expect(s.get('petload_requests_total{plan="pro",operation="listPets",status="error"}')).toBe(1);
    expect(s.get('petload_requests_total{plan="none",operation="none",status="401"}')).toBe(1);
    expect(s.get('petload_request_duration_seconds_count{operation="listPets"}')).toBe(4);
    expect(s.get('petload_request_duration_seconds_bucket{le="2.5",operation="listPets"}')).toBe(3);
    expect(s.get('petload_checks{status="warned"}')).toBe(1);
    expect(s.get('petload_checks{status="passed"}')).toBe(1);
    expect(s.get('petload_keys{state="held_back"}')).toBe(1);
    expect(s.get('petload_keys{state="refused"}')).toBe(1);
    expect(s.get('petload_run_phase{phase="probes"}')).toBe(1);
    expect(s.get('petload_run_phase{phase="starting"}')).toBe(0);

    const om = await metrics.render(PROMETHEUS_ACCEPT);
    expect(om.contentType).toBe(OPENMETRICS_CONTENT_TYPE);
    expect(om.body).toContain('# TYPE petload_requests counter\n');
    expect(om.body.endsWith('# EOF\n')).toBe(true);
    expect(samples(om.body).get('petload_requests_total{plan="pro",operation="listPets",status="200"}')).toBe(2);
    // The Prometheus text format after an OpenMetrics render still names the counter in full.
    expect((await metrics.render(undefined)).body).toContain('# TYPE petload_requests_total counter\n');

    events.emit({
      type: 'phase',
      progress: { phase: 'p', elapsedMs: 0, totalMs: 1, sent: 0, rate: 0, s2xx: 0, s4xx: 0, s429: 0, p99Ms: null },
    });
    events.emit({
      type: 'ended',
      verdict: 'pass',
      exitCode: 0,
      files: null,
      summary: { passed: 5, failed: 0, warnings: 1, skipped: 7 },
    });
    const end = samples((await metrics.render(undefined)).body);
    expect(end.get('petload_run_phase{phase="ended"}')).toBe(1);
    expect(end.get('petload_run_phase{phase="load"}')).toBe(0);
    expect(end.get('petload_checks{status="skipped"}')).toBe(7);
    metrics.unsubscribe();
  });

  it('serves /metrics on 127.0.0.1, and nothing else', async () => {
    const endpoint = await startMetrics(createRunEvents(), { port: 0 });
    try {
      expect(new URL(endpoint.url).hostname).toBe('127.0.0.1');
      const r = await fetch(endpoint.url, { headers: { accept: PROMETHEUS_ACCEPT } });
      expect(r.status).toBe(200);
      expect(r.headers.get('content-type')).toBe(OPENMETRICS_CONTENT_TYPE);
      expect((await fetch(endpoint.url.replace('/metrics', '/'))).status).toBe(404);
      expect((await fetch(endpoint.url, { method: 'POST' })).status).toBe(405);
    } finally {
      await endpoint.close();
    }
    await expect(fetch(endpoint.url)).rejects.toThrow();
  });
});

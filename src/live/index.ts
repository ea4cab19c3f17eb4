/**
 * Sinks that follow a run as it goes: the live page (`petload run --live`) and the OpenMetrics endpoint
 * (`petload run --metrics-port`). Both listen to the run's event stream (src/core/run-events.ts) and nothing else.
 */
export { type LivePage, type LivePageOptions, startLivePage } from './live-page.js';
export {
  createRunMetrics,
  type MetricsEndpoint,
  type MetricsOptions,
  OPENMETRICS_CONTENT_TYPE,
  PROMETHEUS_CONTENT_TYPE,
  type RunMetrics,
  startMetrics,
  wantsOpenMetrics,
} from './metrics.js';
export { relayEvents } from './relay.js';

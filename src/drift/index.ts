/**
 * Drift: what changed between runs (`petload compare`, `petload trend`; docs/compare.md). Pure functions: reports
 * in, a Comparison or a TrendPage and their renderings out; only findReports reads the disk. The CLI reads the
 * files, writes compare.json, compare.md and compare.html, and sets the exit code (compareExitCode).
 */
export { compareExitCode, compareReports, resolveCompareOptions } from './compare.js';
export { type CompareConsoleOptions, compareConsole } from './console.js';
export { type DriftRow, type DriftVerdict, driftRows } from './drifts.js';
export { compareHtml } from './html.js';
export { targetIdentity } from './identity.js';
export { compareMarkdown } from './markdown.js';
export {
  COMPARE_SCHEMA_VERSION,
  type CompareOptions,
  type CompareOptionsInput,
  CompareOptionsSchema,
  CompareSchema,
  type Comparison,
  DEFAULT_THRESHOLDS,
  PERCENTILES,
  type PercentileName,
  type Regression,
  type Threshold,
} from './schema.js';
export {
  findReports,
  type ReportFile,
  readTrendFile,
  type TrendCheck,
  type TrendGroup,
  type TrendLimits,
  type TrendOperation,
  type TrendPage,
  type TrendRun,
  trend,
} from './trend.js';
export { trendHtml } from './trend-html.js';

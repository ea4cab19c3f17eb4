/**
 * Check severities and the rule of which fail a run. Here, below the checks, because the report's schema, the
 * verdict and the check catalogue (src/checks/catalogue.ts, which re-exports them) all need them.
 */
export const SEVERITIES = ['critical', 'major', 'minor', 'advisory', 'info'] as const;
export type Severity = (typeof SEVERITIES)[number];

/** Severities whose failure fails the run (exit 1). */
export const FAILING_SEVERITIES: ReadonlySet<Severity> = new Set(['critical', 'major']);

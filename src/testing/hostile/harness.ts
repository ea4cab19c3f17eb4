/**
 * Test-only: one CLI run (`petload run <small scenario> --target <hostile server>`) against a reference server
 * behind a hostile one, with a keys file of one Free key. Never imported by src.
 */
import { parseKeys } from '../../config/keys-file.js';
import type { ApiKey } from '../../core/api-key.js';
import { createReferenceServer } from '../../reference-server/index.js';
import { readReportJson, reportFilesIn, runCli, scratch, type CliResult } from '../cli.js';
import { startHostileServer, type Behaviour } from './server.js';

export const HOSTILE_KEY = 'SECRET-free-5f3a9c2e7b1d4f60';

/** Probes and a short open-model load, so that the defect meets both: about 35 requests in about a second of real time. */
export const HOSTILE_SCENARIO = `name: hostile
description: A short mixed run for the hostile-target tests
plans: [free]
probes: [list, create-get]
load:
  phases:
    - { executor: constant-rate, rate: 25/s, duration: 600ms }
`;

export interface HostileRun {
  readonly cli: CliResult;
  readonly report: ReturnType<typeof readReportJson>;
  readonly files: string[];
  /** Where the reports are. */
  readonly dir: string;
  /** Requests the hostile server read. */
  readonly requests: number;
}

export async function runAgainstHostile(
  behaviour: Behaviour,
  extraArgs: readonly string[] = [],
  key = HOSTILE_KEY,
): Promise<HostileRun> {
  const keys: ApiKey[] = parseKeys({ keys: [{ key, plan: 'free' }] }, 'test');
  const upstream = await createReferenceServer({ keys });
  const hostile = await startHostileServer(upstream.url, behaviour);
  try {
    const s = scratch('petload-hostile-');
    const keysFile = s.keys([{ key, plan: 'free' }]);
    const scenario = s.file('hostile.yaml', HOSTILE_SCENARIO);
    const reportDir = `${s.dir}/report`;
    const cli = await runCli([
      'run',
      scenario,
      '--target',
      hostile.url,
      '--keys-file',
      keysFile,
      '--report-dir',
      reportDir,
      '--quiet',
      ...extraArgs,
    ]);
    return {
      cli,
      report: readReportJson(reportDir),
      files: reportFilesIn(reportDir),
      dir: reportDir,
      requests: hostile.requests(),
    };
  } finally {
    await hostile.close();
    await upstream.close();
  }
}

/** The outcome of one check in a report, across plans. */
export function checkOf(report: HostileRun['report'], id: string) {
  const c = report.checks.find((x) => x.id === id);
  if (!c) throw new Error(`no check ${id} in the report`);
  return {
    status: c.status,
    evidence: c.byPlan.flatMap((p) => p.evidence),
    reasons: c.byPlan.flatMap((p) => p.reasons),
  };
}

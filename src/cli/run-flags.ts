/**
 * `petload run`'s flags, parsed and checked once, at the edge (docs/cli.md): one zod schema of the command's argv
 * whose output, the run's typed flags, is what ./run-scenarios.ts reads; its type is inferred from the schema.
 * yargs (./run.ts) has already refused unknown flags and values outside a flag's choices; this file turns the
 * rest of the text into values, in the order the checks have always run, each problem one usage error naming the
 * flag. It is loaded only when `run` runs (zod, the network flags' PEM reader and the thresholds' parser with it).
 */
import { existsSync } from 'node:fs';
import * as z from 'zod';
import { PLAN_NAMES } from '../api/plans.js';
import { parseThreshold } from '../checks/thresholds.js';
import { CHECK_IDS } from '../checks/catalogue.js';
import type { Focus } from '../config/focus.js';
import { PetloadError } from '../core/errors.js';
import { didYouMean } from '../core/zod-issues.js';
import { PROBE_NAMES } from '../probes/names.js';
import { parseTargetUrl } from '../http/target-url.js';
import { FAULTS, type FaultName } from '../reference-server/faults.js';
import { WINDOW_REPORTS } from '../reference-server/limiter.js';
import {
  parseBanSecondsFlag,
  parseBanThresholdFlag,
  parseRttFlag,
  parseTimeoutFlag,
  parseTimeScaleFlag,
} from './flag-values.js';
import { githubSummaryFile } from './github-summary.js';
import { readNetworkFlags } from './network-flags.js';
import { parseLingerFlag, parsePortFlag } from './run-sinks.js';

type Env = NodeJS.ProcessEnv;

const text = z.string().optional();
const texts = z.array(z.string()).optional();
const flag = z.boolean().optional();
const fault = z.custom<FaultName>((v) => typeof v === 'string' && Object.hasOwn(FAULTS, v), 'expected a fault name');

/** The command line as yargs gives it: each flag's text, as declared in ./run.ts. */
const argvSchema = z.object({
  scenarios: z.array(z.string()).min(1),
  target: text,
  'keys-file': text,
  'plans-file': text,
  plan: z.array(z.enum(PLAN_NAMES)).optional(),
  partial: flag,
  'time-scale': text,
  fault: z.array(fault).optional(),
  'window-report': z.enum(WINDOW_REPORTS).optional(),
  'count-errors': z.enum(['yes', 'no']).optional(),
  'ban-threshold': text,
  'ban-seconds': text,
  threshold: texts,
  'report-dir': text,
  timeout: text,
  rtt: text,
  rate: text,
  duration: text,
  quiet: flag,
  'dry-run': flag,
  'allow-quota-exhaustion': flag,
  live: text,
  'metrics-port': text,
  'metrics-host': text,
  'metrics-linger': text,
  header: texts,
  'header-secret': texts,
  ca: text,
  'client-cert': text,
  'client-key': text,
  http2: flag,
  shards: text,
  'shard-index': text,
  'start-at': text,
  'run-id': text,
  'github-summary': flag,
  baseline: text,
  check: texts,
  probe: texts,
  key: z.unknown().optional(),
});

type Argv = z.output<typeof argvSchema>;

const EMBEDDED_ONLY = ['fault', 'time-scale', 'window-report', 'count-errors', 'ban-threshold', 'ban-seconds'] as const;

/** What is refused whatever the values: a key on the command line, the embedded server's flags with --target. */
function refuseMixes(a: Argv): void {
  if (a.key !== undefined) {
    throw new PetloadError(
      'E_KEYS_ON_ARGV',
      'API keys are never given on the command line (they would land in shell history and process lists)',
    );
  }
  const embeddedOnly = EMBEDDED_ONLY.filter((f) => a[f] !== undefined).map((f) => `--${f}`);
  if (a.target !== undefined && embeddedOnly.length > 0) {
    const what = embeddedOnly.join(' and ');
    throw new PetloadError(
      'E_USAGE',
      `${what} appl${embeddedOnly.length === 1 ? 'ies' : 'y'} to the embedded reference server only, not to --target (a remote target runs on its own clock and settings)`,
    );
  }
}

/** One name of a list, checked: the name, or a usage error naming the flag with a did-you-mean. */
function named<T extends string>(flagName: string, what: string, names: readonly T[], value: string): T {
  if ((names as readonly string[]).includes(value)) return value as T;
  const hint = didYouMean(value, names);
  throw new PetloadError(
    'E_USAGE',
    `${flagName}: expected ${what}, found "${value}"${hint ? ` (did you mean "${hint}"?)` : ''}`,
  );
}

/** --check and --probe: the run's focus (src/config/focus.ts), each name once; undefined when neither is given. */
function focusOf(a: Argv): Focus | undefined {
  if (a.check === undefined && a.probe === undefined) return undefined;
  const checks = (a.check ?? []).map((c) => named('--check', 'a check id (petload list checks)', CHECK_IDS, c));
  const probes = (a.probe ?? []).map((p) => named('--probe', 'a probe name (petload list probes)', PROBE_NAMES, p));
  return { checks: [...new Set(checks)], probes: [...new Set(probes)] };
}

const given = <T, U>(value: T | undefined, parse: (v: T) => U): U | undefined =>
  value === undefined ? undefined : parse(value);

/** The extra thresholds, each checked by the parser that will judge it. */
function checkThresholds(thresholds: readonly string[] | undefined): void {
  for (const t of thresholds ?? []) {
    try {
      parseThreshold(t);
    } catch (e) {
      throw new PetloadError('E_USAGE', `--threshold: ${(e as Error).message}`);
    }
  }
}

/** The embedded server's flags, or --target's: the target of every run of the command. */
function targetOf(a: Argv, env: Env) {
  if (a.target !== undefined) {
    return {
      kind: 'external' as const,
      url: a.target,
      treatAsRemote: env.PETLOAD_TREAT_AS_REMOTE === '1',
      allowQuotaExhaustion: a['allow-quota-exhaustion'] === true,
    };
  }
  const threshold = given(a['ban-threshold'], parseBanThresholdFlag);
  const seconds = given(a['ban-seconds'], parseBanSecondsFlag);
  const timeScale = given(a['time-scale'], parseTimeScaleFlag);
  return {
    kind: 'embedded' as const,
    ...(timeScale !== undefined ? { timeScale } : {}),
    ...(a.fault ? { faults: a.fault } : {}),
    ...(a['window-report'] ? { windowReport: a['window-report'] } : {}),
    ...(a['count-errors'] ? { countErrors: a['count-errors'] === 'yes' } : {}),
    ...(threshold !== undefined || seconds !== undefined
      ? {
          ban: { ...(threshold !== undefined ? { threshold } : {}), ...(seconds !== undefined ? { seconds } : {}) },
        }
      : {}),
  };
}

/** Every flag's value, checked in the order the checks have always run. */
function valuesOf(a: Argv, env: Env) {
  if (a.target !== undefined) parseTargetUrl(a.target);
  const githubSummary = githubSummaryFile(a['github-summary'], env);
  const live = given(a.live, (v) => parsePortFlag('--live', v));
  const metricsPort = given(a['metrics-port'], (v) => parsePortFlag('--metrics-port', v));
  const lingerS = parseLingerFlag(a['metrics-linger']);
  if (a.baseline !== undefined && !existsSync(a.baseline))
    throw new PetloadError('E_USAGE', `--baseline: ${a.baseline}: no such file or directory`);
  const timeoutMs = given(a.timeout, parseTimeoutFlag);
  const rttMs = given(a.rtt, parseRttFlag);
  const network = readNetworkFlags(a, env);
  const target = targetOf(a, env);
  checkThresholds(a.threshold);
  const focus = focusOf(a);
  return {
    scenarios: a.scenarios,
    target,
    network,
    keysFile: a['keys-file'],
    plansFile: a['plans-file'],
    plans: a.plan,
    focus,
    partial: a.partial === true,
    thresholds: a.threshold,
    overrides: { ...given(a.rate, (rate) => ({ rate })), ...given(a.duration, (duration) => ({ duration })) },
    reportDir: a['report-dir'],
    timeoutMs,
    rttMs,
    quiet: a.quiet === true,
    dryRun: a['dry-run'] === true,
    sinks: { live, metricsPort, metricsHost: a['metrics-host'], lingerS },
    shard: { shards: a.shards, shardIndex: a['shard-index'], startAt: a['start-at'], runId: a['run-id'] },
    githubSummaryFlag: a['github-summary'],
    githubSummary,
    baseline: a.baseline,
  };
}

/** A value yargs let through that the schema refuses (a flag given twice, say), as one usage error. */
function usageOf(error: z.ZodError): PetloadError {
  const issue = error.issues[0];
  const name = issue?.path[0];
  const where = name === undefined ? 'petload run' : name === 'scenarios' ? '<scenarios>' : `--${String(name)}`;
  const twice = issue?.code === 'invalid_type' && / received array$/.test(issue.message);
  const what = twice ? 'expected one value, found it given more than once' : (issue?.message ?? 'invalid');
  return new PetloadError('E_USAGE', `${where}: ${what}`);
}

/** `petload run`'s argv, parsed and checked: every value the run reads, typed. */
export function parseRunFlags(argv: unknown, env: Env) {
  const parsed = argvSchema.safeParse(argv);
  if (!parsed.success) throw usageOf(parsed.error);
  refuseMixes(parsed.data);
  return valuesOf(parsed.data, env);
}

export type RunFlags = ReturnType<typeof parseRunFlags>;

/**
 * The Kubernetes objects of a sharded run (`petload k8s`), as plain objects:
 * - a PersistentVolumeClaim (ReadWriteMany) where every shard writes its report and the merge step reads them;
 * - a ConfigMap holding the scenario, when it is a file rather than a shipped name (the image has only those);
 * - the shards: an Indexed Job (completionMode Indexed, parallelism = completions = N, backoffLimit 0 and
 *   restartPolicy Never: a retried shard would spend its keys' quota twice). Each pod gets JOB_COMPLETION_INDEX from
 *   Kubernetes, the keys as a file from the named Secret (PETLOAD_KEYS_FILE names the file; no key is ever an
 *   environment value or an argument), and exits 0 when its run wrote its report, pass or fail: a shard's fail
 *   must not stop the other shards (backoffLimit 0 would fail the whole Job), the merged verdict decides;
 * - the merge step: a second Job whose init container waits (bounded) until every shard's report.json is on the
 *   volume, then runs `petload merge`; its exit code is the run's verdict (0 pass, 1 fail).
 */
import type { PlanName } from '../api/plans.js';

export interface ManifestOptions {
  /** Shipped scenario name, or the text of a scenario file (put in a ConfigMap). */
  scenario: { name: string; file?: { basename: string; text: string } };
  target: string;
  shards: number;
  image: string;
  keysSecret: string;
  /** The key inside the Secret holding the keys file (default keys.json). */
  keysSecretKey: string;
  runId: string;
  /** ISO time at which every shard begins. */
  startAt: string;
  namespace?: string;
  storageClass?: string;
  storage: string;
  /** How long the merge step waits for the shards' reports, seconds. */
  mergeWaitSeconds: number;
  /** Flags passed through to `petload run`. */
  plans?: readonly PlanName[];
  rate?: string;
  duration?: string;
  thresholds?: readonly string[];
  timeoutMs?: number;
  allowQuotaExhaustion?: boolean;
}

export type Manifest = {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels: Record<string, string> };
} & Record<string, unknown>;

/** Where things are inside the pods. */
export const PATHS = {
  keysDir: '/etc/petload/keys',
  scenarioDir: '/etc/petload/scenario',
  reports: '/reports',
} as const;

/** The image runs as the `node` user of node:20-slim. */
const USER_ID = 1000;

/** A word for `sh -c`, quoted so that nothing in it is expanded. */
export const shellQuote = (s: string): string => (/^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);

export function jobName(runId: string): string {
  return `petload-${runId}`.slice(0, 52).replace(/-+$/, '');
}

/** What the objects of one run share: names, labels, the run's folder, and the pods' security, volumes, resources. */
function runParts(o: ManifestOptions) {
  const name = jobName(o.runId);
  const labels = {
    'app.kubernetes.io/name': 'petload',
    'app.kubernetes.io/instance': name,
    'petload.dev/run-id': o.runId,
  };
  const claim = `${name}-reports`;
  return {
    name,
    labels,
    meta: (n: string, component: string) => ({
      name: n,
      ...(o.namespace ? { namespace: o.namespace } : {}),
      labels: { ...labels, 'app.kubernetes.io/component': component },
    }),
    claim,
    runDir: `${PATHS.reports}/${o.runId}`,
    configMap: o.scenario.file ? `${name}-scenario` : null,
    podSecurity: { runAsNonRoot: true, runAsUser: USER_ID, runAsGroup: USER_ID, fsGroup: USER_ID },
    containerSecurity: {
      allowPrivilegeEscalation: false,
      readOnlyRootFilesystem: true,
      capabilities: { drop: ['ALL'] },
    },
    reportsVolume: { name: 'reports', persistentVolumeClaim: { claimName: claim } },
    reportsMount: { name: 'reports', mountPath: PATHS.reports },
    // tsx (the TypeScript loader) keeps a cache under the temporary directory: a small writable one.
    tmpVolume: { name: 'tmp', emptyDir: { sizeLimit: '256Mi' } },
    tmpMount: { name: 'tmp', mountPath: '/tmp' },
    resources: { requests: { cpu: '1', memory: '512Mi' }, limits: { memory: '1Gi' } },
  };
}

type RunParts = ReturnType<typeof runParts>;

/** The arguments of each shard's `petload run`: the scenario, the run's shared flags, the flags passed through. */
function runArgs(o: ManifestOptions): string[] {
  const scenarioArg = o.scenario.file ? `${PATHS.scenarioDir}/${o.scenario.file.basename}` : o.scenario.name;
  return [
    'run',
    scenarioArg,
    '--target',
    o.target,
    '--shards',
    String(o.shards),
    '--start-at',
    o.startAt,
    '--run-id',
    o.runId,
    ...(o.plans ?? []).flatMap((p) => ['--plan', p]),
    ...(o.rate !== undefined ? ['--rate', o.rate] : []),
    ...(o.duration !== undefined ? ['--duration', o.duration] : []),
    ...(o.thresholds ?? []).flatMap((t) => ['--threshold', t]),
    ...(o.timeoutMs !== undefined ? ['--timeout', String(o.timeoutMs)] : []),
    ...(o.allowQuotaExhaustion ? ['--allow-quota-exhaustion'] : []),
    '--quiet',
  ];
}

function shardScript(o: ManifestOptions, runDir: string): string {
  // The index comes from JOB_COMPLETION_INDEX (petload reads it); the shell only names the report folder after it.
  return [
    `petload ${runArgs(o).map(shellQuote).join(' ')} --report-dir ${shellQuote(`${runDir}/shard-`)}"$JOB_COMPLETION_INDEX"`,
    'rc=$?',
    '# 0 pass, 1 fail: the report is written and the merged verdict decides; anything else fails the Job',
    'if [ "$rc" -le 1 ]; then exit 0; fi',
    'exit "$rc"',
  ].join('\n');
}

/** The merge step's init container: wait (bounded) until every shard's report.json is on the volume. */
function waitScript(o: ManifestOptions, runDir: string): string {
  const tries = Math.max(1, Math.ceil(o.mergeWaitSeconds / 10));
  return [
    `n=0`,
    `until [ "$(ls ${runDir}/shard-*/report.json 2>/dev/null | wc -l)" -ge ${o.shards} ]; do`,
    `  n=$((n+1))`,
    `  if [ "$n" -gt ${tries} ]; then echo "petload: after ${o.mergeWaitSeconds} s, not every one of the ${o.shards} shards has written ${runDir}/shard-I/report.json" >&2; ls -d ${runDir}/shard-* >&2; exit 1; fi`,
    `  sleep 10`,
    `done`,
  ].join('\n');
}

function mergeScript(o: ManifestOptions, runDir: string): string {
  const reportFiles = Array.from({ length: o.shards }, (_, i) => `${runDir}/shard-${i}/report.json`);
  return [
    `petload merge ${reportFiles.map(shellQuote).join(' ')} --out ${shellQuote(`${runDir}/merged`)}`,
    'rc=$?',
    `cat ${shellQuote(`${runDir}/merged/summary.md`)} 2>/dev/null`,
    'exit "$rc"',
  ].join('\n');
}

function reportsClaim(o: ManifestOptions, run: RunParts): Manifest {
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: run.meta(run.claim, 'reports'),
    spec: {
      // Every shard pod writes and the merge pod reads, maybe on different nodes.
      accessModes: ['ReadWriteMany'],
      ...(o.storageClass ? { storageClassName: o.storageClass } : {}),
      resources: { requests: { storage: o.storage } },
    },
  };
}

function shardJob(o: ManifestOptions, run: RunParts): Manifest {
  const { configMap } = run;
  const scenarioVolume = configMap ? [{ name: 'scenario', configMap: { name: configMap } }] : [];
  const scenarioMount = configMap ? [{ name: 'scenario', mountPath: PATHS.scenarioDir, readOnly: true }] : [];
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: run.meta(run.name, 'shard'),
    spec: {
      completionMode: 'Indexed',
      completions: o.shards,
      parallelism: o.shards,
      // A retried shard would spend its keys' quota twice: no retries, ever.
      backoffLimit: 0,
      ttlSecondsAfterFinished: 7 * 24 * 3600,
      template: {
        metadata: { labels: { ...run.labels, 'app.kubernetes.io/component': 'shard' } },
        spec: {
          restartPolicy: 'Never',
          automountServiceAccountToken: false,
          securityContext: run.podSecurity,
          containers: [
            {
              name: 'shard',
              image: o.image,
              command: ['/bin/sh', '-c', shardScript(o, run.runDir)],
              // A path, not a key: the keys are only in the file mounted from the Secret.
              env: [{ name: 'PETLOAD_KEYS_FILE', value: `${PATHS.keysDir}/${o.keysSecretKey}` }],
              volumeMounts: [
                { name: 'keys', mountPath: PATHS.keysDir, readOnly: true },
                run.reportsMount,
                run.tmpMount,
                ...scenarioMount,
              ],
              securityContext: run.containerSecurity,
              resources: run.resources,
            },
          ],
          volumes: [
            // 0440 = 288: readable by the user and by the fsGroup the pod runs with, nobody else.
            {
              name: 'keys',
              secret: {
                secretName: o.keysSecret,
                defaultMode: 288,
                items: [{ key: o.keysSecretKey, path: o.keysSecretKey }],
              },
            },
            run.reportsVolume,
            run.tmpVolume,
            ...scenarioVolume,
          ],
        },
      },
    },
  };
}

function mergeJob(o: ManifestOptions, run: RunParts): Manifest {
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: run.meta(`${run.name}-merge`, 'merge'),
    spec: {
      completions: 1,
      parallelism: 1,
      backoffLimit: 0,
      activeDeadlineSeconds: o.mergeWaitSeconds + 600,
      ttlSecondsAfterFinished: 7 * 24 * 3600,
      template: {
        metadata: { labels: { ...run.labels, 'app.kubernetes.io/component': 'merge' } },
        spec: {
          restartPolicy: 'Never',
          automountServiceAccountToken: false,
          securityContext: run.podSecurity,
          initContainers: [
            {
              name: 'wait-for-shards',
              image: o.image,
              command: ['/bin/sh', '-c', waitScript(o, run.runDir)],
              volumeMounts: [run.reportsMount],
              securityContext: run.containerSecurity,
              resources: { requests: { cpu: '10m', memory: '16Mi' }, limits: { memory: '64Mi' } },
            },
          ],
          containers: [
            {
              name: 'merge',
              image: o.image,
              command: ['/bin/sh', '-c', mergeScript(o, run.runDir)],
              volumeMounts: [run.reportsMount, run.tmpMount],
              securityContext: run.containerSecurity,
              resources: run.resources,
            },
          ],
          volumes: [run.reportsVolume, run.tmpVolume],
        },
      },
    },
  };
}

export function buildManifests(o: ManifestOptions): Manifest[] {
  const run = runParts(o);
  const manifests: Manifest[] = [reportsClaim(o, run)];
  if (run.configMap && o.scenario.file) {
    manifests.push({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: run.meta(run.configMap, 'scenario'),
      data: { [o.scenario.file.basename]: o.scenario.file.text },
    });
  }
  manifests.push(shardJob(o, run), mergeJob(o, run));
  return manifests;
}

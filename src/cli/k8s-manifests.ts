/**
 * What `petload k8s` does once parsed (src/cli/k8s.ts imports this file only when the command runs): checks
 * every flag and the scenario with its shards' share of it, then prints the manifests (src/k8s/manifests.ts) as
 * YAML on stdout.
 */
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { parseThreshold } from '../checks/thresholds.js';
import { loadScenario } from '../config/load-scenario.js';
import type { Scenario } from '../config/scenario.js';
import { PetloadError } from '../core/errors.js';
import { isLoopback, parseTargetUrl } from '../http/target-url.js';
import { buildManifests, jobName } from '../k8s/manifests.js';
import { renderManifests } from '../k8s/render.js';
import { shardScenario } from '../shard/partition.js';
import { deriveRunId, parseRunId, parseShardCount, parseStartAt } from '../shard/spec.js';
import { defaultStartAt, type K8sArgs } from './k8s-args.js';
import { parseTimeoutFlag } from './flag-values.js';

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/;
const SECRET_KEY = /^[-._a-zA-Z0-9]{1,253}$/;
const QUANTITY = /^\d+(\.\d+)?(Ki|Mi|Gi|Ti|Pi|Ei|k|M|G|T|P|E)?$/;
const IMAGE = /^[^\s'"$`\\]+$/;

function expect(ok: boolean, message: string): void {
  if (!ok) throw new PetloadError('E_USAGE', message);
}

/** The flags, checked in this order; what later steps need of them, parsed. */
interface CheckedFlags {
  readonly shards: number;
  /** The target URL without a trailing slash. */
  readonly target: string;
  readonly mergeWait: number;
  readonly timeoutMs: number | undefined;
}

/** The names and sizes the manifests carry: Kubernetes' own rules for them. */
function checkObjectFlags(a: K8sArgs): void {
  expect(
    IMAGE.test(a.image),
    `--image: expected an image reference such as registry.example.com/petload:0.1.0, found ${JSON.stringify(a.image)}`,
  );
  expect(
    DNS_SUBDOMAIN.test(a['keys-secret']),
    `--keys-secret: expected the name of a Secret (lower-case letters, digits, "-" and "."), found ${JSON.stringify(a['keys-secret'])}`,
  );
  expect(
    SECRET_KEY.test(a['keys-secret-key']),
    `--keys-secret-key: expected an entry name of the Secret such as keys.json, found ${JSON.stringify(a['keys-secret-key'])}`,
  );
  if (a.namespace !== undefined)
    expect(
      DNS_LABEL.test(a.namespace),
      `--namespace: expected a namespace name (lower-case letters, digits and "-"), found ${JSON.stringify(a.namespace)}`,
    );
  if (a['storage-class'] !== undefined)
    expect(
      DNS_SUBDOMAIN.test(a['storage-class']),
      `--storage-class: expected a storage class name, found ${JSON.stringify(a['storage-class'])}`,
    );
  expect(
    QUANTITY.test(a.storage),
    `--storage: expected a size such as 1Gi or 500Mi, found ${JSON.stringify(a.storage)}`,
  );
}

function checkFlags(a: K8sArgs): CheckedFlags {
  const shards = parseShardCount(a.shards);
  const url = parseTargetUrl(a.target);
  const target = url.href.replace(/\/$/, '');
  expect(
    !isLoopback(target),
    `--target: ${target} is a loopback address; inside a pod it would be the pod itself: give the address the pods reach the API at`,
  );
  checkObjectFlags(a);
  const mergeWait = /^\d+$/.test(a['merge-wait']) ? Number(a['merge-wait']) : NaN;
  expect(
    mergeWait >= 10 && mergeWait <= 7 * 86_400,
    `--merge-wait: expected whole seconds from 10 to ${7 * 86_400}, found ${JSON.stringify(a['merge-wait'])}`,
  );
  for (const t of a.threshold ?? []) {
    try {
      parseThreshold(t);
    } catch (e) {
      throw new PetloadError('E_USAGE', `--threshold: ${(e as Error).message}`);
    }
  }
  const timeoutMs = a.timeout === undefined ? undefined : parseTimeoutFlag(a.timeout);
  return { shards, target, mergeWait, timeoutMs };
}

/**
 * The scenario, checked here with the overrides and the shards' share of it, so that a manifest never starts
 * pods that refuse to run (keys are not known here: each shard checks it has keys of every plan); and its file,
 * for the ConfigMap, when it is one.
 */
async function checkedScenario(
  a: K8sArgs,
  shards: number,
): Promise<{ scenario: Scenario; file: { basename: string; text: string } | undefined }> {
  const loaded = loadScenario(a.scenario);
  // The executors (which say how --rate and --duration change their phases) are loaded only for those flags.
  const scenario =
    a.rate === undefined && a.duration === undefined
      ? loaded
      : (await import('../config/overrides.js')).applyOverrides(loaded, {
          ...(a.rate !== undefined ? { rate: a.rate } : {}),
          ...(a.duration !== undefined ? { duration: a.duration } : {}),
        });
  for (let index = 0; index < shards; index++) shardScenario(scenario, { index, count: shards });
  const isFile = a.scenario.includes('/') || /\.ya?ml$/i.test(a.scenario);
  // A ConfigMap entry is named by letters, digits, '-', '_' and '.' only.
  const entry = /^[-._a-zA-Z0-9]+$/.test(basename(a.scenario)) ? basename(a.scenario) : 'scenario.yaml';
  const file = isFile ? { basename: entry, text: readFileSync(a.scenario, 'utf8') } : undefined;
  return { scenario, file };
}

/** `petload k8s`: the manifests on stdout, after the lines that say how to apply them. */
export async function printManifests(a: K8sArgs): Promise<void> {
  const { shards, target, mergeWait, timeoutMs } = checkFlags(a);
  const { scenario, file } = await checkedScenario(a, shards);
  const startAt = a['start-at'] !== undefined ? parseStartAt(a['start-at']) : Date.parse(defaultStartAt(Date.now()));
  const runId =
    a['run-id'] !== undefined ? parseRunId(a['run-id']) : deriveRunId(scenario.name, target, shards, startAt);
  const startIso = new Date(startAt).toISOString();
  const manifests = buildManifests({
    scenario: { name: scenario.name, ...(file ? { file } : {}) },
    target,
    shards,
    image: a.image,
    keysSecret: a['keys-secret'],
    keysSecretKey: a['keys-secret-key'],
    runId,
    startAt: startIso,
    ...(a.namespace !== undefined ? { namespace: a.namespace } : {}),
    ...(a['storage-class'] !== undefined ? { storageClass: a['storage-class'] } : {}),
    storage: a.storage,
    mergeWaitSeconds: mergeWait,
    ...(a.plan ? { plans: a.plan } : {}),
    ...(a.rate !== undefined ? { rate: a.rate } : {}),
    ...(a.duration !== undefined ? { duration: a.duration } : {}),
    ...(a.threshold ? { thresholds: a.threshold } : {}),
    ...(timeoutMs !== undefined ? { timeoutMs } : {}),
    ...(a['allow-quota-exhaustion'] ? { allowQuotaExhaustion: true } : {}),
  });
  const name = jobName(runId);
  const ns = a.namespace !== undefined ? ` -n ${a.namespace}` : '';
  process.stdout.write(
    renderManifests(manifests, [
      `petload ${scenario.name} against ${target}: ${shards} shards, run ${runId}.`,
      `Every shard begins at ${startIso}: apply before then (kubectl apply${ns} -f FILE).`,
      `The Secret ${a['keys-secret']} must hold the keys file as ${a['keys-secret-key']}, with at least ${shards} keys of every plan judged.`,
      `The merged report: /reports/${runId}/merged on the volume ${name}-reports; verdict: kubectl${ns} logs job/${name}-merge`,
      'See docs/kubernetes.md.',
    ]),
  );
}

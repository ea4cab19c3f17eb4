/**
 * `petload k8s <scenario> --target URL --shards N --image IMAGE --keys-secret NAME`: prints the Kubernetes
 * manifests of a sharded run (src/k8s/manifests.ts) as YAML on stdout, for `kubectl apply -f -`. Nothing is sent
 * anywhere and no key is read: the keys stay in the Secret. The procedure is in docs/kubernetes.md.
 */
import { basename } from 'node:path';
import { readFileSync } from 'node:fs';
import type { Argv, CommandModule } from 'yargs';
import { PLAN_NAMES, type PlanName } from '../api/plans.js';
import { parseThreshold } from '../checks/thresholds.js';
import { loadScenario } from '../config/load-scenario.js';
import { applyOverrides } from '../config/overrides.js';
import { isLoopback, parseTargetUrl } from '../engine/target.js';
import { PetloadError } from '../core/errors.js';
import { buildManifests, jobName } from '../k8s/manifests.js';
import { renderManifests } from '../k8s/render.js';
import { shardScenario } from '../shard/partition.js';
import { deriveRunId, parseRunId, parseShardCount, parseStartAt } from '../shard/spec.js';
import { parseTimeoutFlag } from './run.js';

interface K8sArgs {
  scenario: string;
  target: string;
  shards: string;
  image: string;
  'keys-secret': string;
  'keys-secret-key': string;
  'start-at'?: string;
  'run-id'?: string;
  namespace?: string;
  'storage-class'?: string;
  storage: string;
  'merge-wait': string;
  plan?: PlanName[];
  rate?: string;
  duration?: string;
  threshold?: string[];
  timeout?: string;
  'allow-quota-exhaustion'?: boolean;
}

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/;
const SECRET_KEY = /^[-._a-zA-Z0-9]{1,253}$/;
const QUANTITY = /^\d+(\.\d+)?(Ki|Mi|Gi|Ti|Pi|Ei|k|M|G|T|P|E)?$/;
const IMAGE = /^[^\s'"$`\\]+$/;

function expect(ok: boolean, message: string): void {
  if (!ok) throw new PetloadError('E_USAGE', message);
}

/** The default --start-at: the next whole minute at least five minutes from now (time to apply and pull the image). */
export function defaultStartAt(now: number): string {
  const minute = 60_000;
  return new Date(Math.ceil((now + 5 * minute) / minute) * minute).toISOString();
}

export const k8sCommand: CommandModule<object, K8sArgs> = {
  command: 'k8s <scenario>',
  describe: 'Print the Kubernetes manifests (Indexed Job of shards, merge Job, volume) of a sharded run',
  builder: (y: Argv) =>
    y
      .positional('scenario', {
        type: 'string',
        demandOption: true,
        describe: 'a shipped scenario name or a YAML file (put in a ConfigMap)',
      })
      .option('target', {
        type: 'string',
        demandOption: true,
        describe: 'base URL of the API as the pods reach it (ending in /v1)',
      })
      .option('shards', {
        type: 'string',
        demandOption: true,
        requiresArg: true,
        describe: 'number of shards (pods); each plan needs that many keys',
      })
      .option('image', {
        type: 'string',
        demandOption: true,
        describe: 'the petload image (built from the Dockerfile)',
      })
      .option('keys-secret', {
        type: 'string',
        demandOption: true,
        describe: 'name of the Secret holding the keys file',
      })
      .option('keys-secret-key', {
        type: 'string',
        default: 'keys.json',
        describe: 'the entry of the Secret that is the keys file',
      })
      .option('start-at', {
        type: 'string',
        requiresArg: true,
        describe: 'ISO time at which every shard begins (default: the next whole minute 5 min from now)',
      })
      .option('run-id', {
        type: 'string',
        requiresArg: true,
        describe: "the run's identity (default: derived from scenario, target, shards, start)",
      })
      .option('namespace', {
        type: 'string',
        requiresArg: true,
        describe: "namespace of every object (default: kubectl's)",
      })
      .option('storage-class', {
        type: 'string',
        requiresArg: true,
        describe: 'storage class of the reports volume (must offer ReadWriteMany)',
      })
      .option('storage', { type: 'string', default: '1Gi', describe: 'size of the reports volume' })
      .option('merge-wait', {
        type: 'string',
        default: '86400',
        describe: "seconds the merge step waits for every shard's report",
      })
      .option('plan', {
        type: 'string',
        array: true,
        choices: PLAN_NAMES,
        describe: 'plans to judge (passed to petload run)',
      })
      .option('rate', { type: 'string', requiresArg: true, describe: 'passed to petload run' })
      .option('duration', { type: 'string', requiresArg: true, describe: 'passed to petload run' })
      .option('threshold', { type: 'string', array: true, describe: 'passed to petload run (repeatable)' })
      .option('timeout', { type: 'string', requiresArg: true, describe: 'passed to petload run' })
      .option('allow-quota-exhaustion', {
        type: 'boolean',
        describe: 'passed to petload run',
      }) as unknown as Argv<K8sArgs>,
  handler: (a) => {
    const shards = parseShardCount(a.shards);
    const url = parseTargetUrl(a.target);
    const target = url.href.replace(/\/$/, '');
    expect(
      !isLoopback(target),
      `--target: ${target} is a loopback address; inside a pod it would be the pod itself: give the address the pods reach the API at`,
    );
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

    // The scenario is checked here, with the overrides and the shards' share of it, so that a manifest never
    // starts pods that refuse to run. (Keys are not known here: each shard checks it has keys of every plan.)
    const scenario = applyOverrides(loadScenario(a.scenario), {
      ...(a.rate !== undefined ? { rate: a.rate } : {}),
      ...(a.duration !== undefined ? { duration: a.duration } : {}),
    });
    for (let index = 0; index < shards; index++) shardScenario(scenario, { index, count: shards });
    const isFile = a.scenario.includes('/') || /\.ya?ml$/i.test(a.scenario);
    // A ConfigMap entry is named by letters, digits, '-', '_' and '.' only.
    const entry = /^[-._a-zA-Z0-9]+$/.test(basename(a.scenario)) ? basename(a.scenario) : 'scenario.yaml';
    const file = isFile ? { basename: entry, text: readFileSync(a.scenario, 'utf8') } : undefined;

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
  },
};

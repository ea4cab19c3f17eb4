/**
 * `petload k8s <scenario> --target URL --shards N --image IMAGE --keys-secret NAME`: prints the Kubernetes
 * manifests of a sharded run (src/k8s/manifests.ts) as YAML on stdout, for `kubectl apply -f -`. Nothing is sent
 * anywhere and no key is read: the keys stay in the Secret. The procedure is in docs/kubernetes.md.
 * This file holds the command's flags; what it does (./k8s-manifests.ts, which loads the scenario schema) is
 * imported when it runs.
 */
import type { Argv, CommandModule } from 'yargs';
import { PLAN_NAMES } from '../api/plans.js';
import type { K8sArgs } from './k8s-args.js';

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
  handler: async (a) => {
    (await import('./one-shot.js')).parseWithoutCompiling();
    const { printManifests } = await import('./k8s-manifests.js');
    await printManifests(a);
  },
};

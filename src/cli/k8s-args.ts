/**
 * What `petload k8s` is given (its flags as yargs declares and parses them, and their type, inferred from that
 * declaration) and its default start: apart from the command (./k8s.ts) and what it does (./k8s-manifests.ts),
 * which both read them, so that neither imports the other back.
 */
import type { Argv } from 'yargs';
import { PLAN_NAMES } from '../api/plans.js';
import type { ArgsOf } from './command.js';

/** `petload k8s`'s positional and flags, as yargs declares, checks and shows them. */
export const k8sOptions = (y: Argv) =>
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
    });

/** What `petload k8s` is given: its flags as yargs parses them, inferred from their declaration. */
export type K8sArgs = ArgsOf<typeof k8sOptions>;

/** The default --start-at: the next whole minute at least five minutes from now (time to apply and pull the image). */
export function defaultStartAt(now: number): string {
  const minute = 60_000;
  return new Date(Math.ceil((now + 5 * minute) / minute) * minute).toISOString();
}

/**
 * What `petload k8s` is given (its flags as yargs parses them) and its default start: apart from the command
 * (./k8s.ts) and what it does (./k8s-manifests.ts), which both read them, so that neither imports the other back.
 */
import type { PlanName } from '../api/plans.js';

export interface K8sArgs {
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

/** The default --start-at: the next whole minute at least five minutes from now (time to apply and pull the image). */
export function defaultStartAt(now: number): string {
  const minute = 60_000;
  return new Date(Math.ceil((now + 5 * minute) / minute) * minute).toISOString();
}

/**
 * An API key as the rest of the code sees it, once the keys file (src/config/keys-file.ts) has been read and its
 * figures resolved. Keys are secrets: they are shown only as a label and their last four characters.
 */
import type { PlanLimits, PlanName } from '../api/plans.js';

/** A key as the rest of the code sees it. `secret` must never be printed: use `label`. */
export interface ApiKey {
  readonly secret: string;
  readonly plan: PlanName;
  readonly limits: PlanLimits;
  readonly label: string;
  readonly sacrificial: boolean;
  /** Marked for the plan audit ("audit": true in the keys file): the audit spends its day; nothing else uses it. */
  readonly audit?: boolean;
}

/** A key's label: its name and the last four characters of the secret. */
export function keyLabel(secret: string, name: string): string {
  return `${name} (…${secret.slice(-4)})`;
}

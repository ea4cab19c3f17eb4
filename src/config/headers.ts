/**
 * Extra request headers (docs/scenarios.md, "Headers"; docs/cli.md): a scenario's `headers:` map, `--header
 * 'Name: value'` and `--header-secret Name=VAR`. Every request of a run carries them, after petload's own
 * Accept and before its Authorization, which stays petload's: a run's credentials are its keys.
 *
 * A value written in the scenario or on the command line is sent as written (a scenario value may be
 * `${VAR}`, substituted like any other value of the file). A value given as `{ secretEnv: VAR }`, or by
 * `--header-secret`, is read from the environment when the run starts and is a secret: the run's redactor hides
 * it in every report, log line and message, as it hides the keys.
 */
import * as z from 'zod';
import { PetloadError } from '../core/errors.js';
import { CUT_MIN } from './redactor.js';

/** A header petload sends with every request. `name` is lower-case. */
export interface ExtraHeader {
  readonly name: string;
  readonly value: string;
  /** The value came from a secret (secretEnv, --header-secret): never written anywhere. */
  readonly secret: boolean;
}

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Why a header may not be set by the user (by lower-case name). */
const REFUSED: Readonly<Record<string, string>> = {
  authorization:
    "Authorization is petload's own: it sends each key of the keys file as a bearer token (a run's credentials are its keys)",
  'proxy-authorization': "a proxy's credentials go in its URL (HTTPS_PROXY=http://user:password@host:port)",
  host: 'Host is set by the HTTP client from --target',
  'content-length': 'Content-Length is set by the HTTP client',
  'transfer-encoding': 'Transfer-Encoding is set by the HTTP client',
  connection: 'Connection is a hop-by-hop header of the HTTP client',
  'keep-alive': 'Keep-Alive is a hop-by-hop header of the HTTP client',
  upgrade: 'Upgrade is a hop-by-hop header of the HTTP client',
  expect: 'Expect is not supported',
  te: 'TE is a hop-by-hop header of the HTTP client',
};

/** Why `name` cannot be an extra header, or null when it can. */
export function headerNameProblem(name: string): string | null {
  if (!TOKEN.test(name)) return `expected a header name of letters, digits and - (such as X-Tenant), found "${name}"`;
  const refused = REFUSED[name.toLowerCase()];
  return refused === undefined ? null : `${name} cannot be set: ${refused}`;
}

/** Why `value` cannot be a header value, or null when it can (no line breaks or NUL: no header injection). */
export function headerValueProblem(value: string): string | null {
  return /[\r\n\0]/.test(value) ? 'expected a header value on one line, found a line break or NUL in it' : null;
}

/** The scenario's `headers:` map: name to a value, or to `{ secretEnv: VAR }`. */
export const HeadersSchema = z
  .record(
    z.string(),
    z.union(
      [
        z.string().superRefine((v, ctx) => {
          const problem = headerValueProblem(v);
          if (problem !== null) ctx.addIssue({ code: 'custom', message: problem });
        }),
        z.strictObject({
          secretEnv: z.string().regex(ENV_NAME, 'expected the name of an environment variable, such as API_TOKEN'),
        }),
      ],
      { error: 'expected a header value (text), or { secretEnv: VARIABLE } for a secret read from the environment' },
    ),
  )
  .superRefine((headers, ctx) => {
    const seen = new Map<string, string>();
    for (const name of Object.keys(headers)) {
      const problem = headerNameProblem(name);
      if (problem !== null) ctx.addIssue({ code: 'custom', path: [name], message: problem });
      const first = seen.get(name.toLowerCase());
      if (first !== undefined)
        ctx.addIssue({ code: 'custom', path: [name], message: `expected each header once, found ${first} again` });
      seen.set(name.toLowerCase(), name);
    }
  });

export type ScenarioHeaders = z.output<typeof HeadersSchema>;

function usage(message: string): never {
  throw new PetloadError('E_USAGE', message);
}

/** `--header 'Name: value'`. */
export function parseHeaderFlag(raw: string): ExtraHeader {
  const colon = raw.indexOf(':');
  if (colon <= 0) usage(`--header: expected 'Name: value', such as 'X-Tenant: acme', found ${JSON.stringify(raw)}`);
  const name = raw.slice(0, colon).trim();
  const value = raw.slice(colon + 1).trim();
  const problem = headerNameProblem(name) ?? headerValueProblem(value);
  if (problem !== null) usage(`--header: ${problem}`);
  return { name: name.toLowerCase(), value, secret: false };
}

/** `--header-secret Name=VAR`: the header's value is the environment variable VAR, a secret. */
export function parseHeaderSecretFlag(raw: string, env: Readonly<Record<string, string | undefined>>): ExtraHeader {
  const eq = raw.indexOf('=');
  const name = eq <= 0 ? '' : raw.slice(0, eq).trim();
  const variable = eq <= 0 ? '' : raw.slice(eq + 1).trim();
  if (name === '' || !ENV_NAME.test(variable))
    usage(
      `--header-secret: expected Name=VARIABLE (the header's value is read from the environment variable), such as X-Gateway-Token=GATEWAY_TOKEN, found ${JSON.stringify(raw)}`,
    );
  const problem = headerNameProblem(name);
  if (problem !== null) usage(`--header-secret: ${problem}`);
  return { name: name.toLowerCase(), value: secretValue(env, variable, `--header-secret ${name}`), secret: true };
}

function secretValue(env: Readonly<Record<string, string | undefined>>, variable: string, where: string): string {
  const value = env[variable];
  if (value === undefined || value === '')
    usage(`${where}: the environment variable ${variable} is not set (it holds the header's value)`);
  const problem = headerValueProblem(value);
  if (problem !== null) usage(`${where}: ${variable}: ${problem}`);
  // A shorter secret could not be hidden in reports without hiding ordinary words with it.
  if (value.trim().length < CUT_MIN)
    usage(`${where}: ${variable}: expected a secret of at least ${CUT_MIN} characters, found a shorter one`);
  return value.trim();
}

/**
 * A run's extra headers: the scenario's, then the command line's (a flag wins over the scenario for the same
 * name). `file` names the scenario in messages.
 */
export function resolveHeaders(
  scenario: ScenarioHeaders | undefined,
  flags: readonly ExtraHeader[],
  env: Readonly<Record<string, string | undefined>>,
  file = 'the scenario',
): ExtraHeader[] {
  const byName = new Map<string, ExtraHeader>();
  for (const [name, v] of Object.entries(scenario ?? {})) {
    const header =
      typeof v === 'string'
        ? { name: name.toLowerCase(), value: v.trim(), secret: false }
        : { name: name.toLowerCase(), value: secretValue(env, v.secretEnv, `${file}: headers.${name}`), secret: true };
    byName.set(header.name, header);
  }
  for (const h of flags) byName.set(h.name, h);
  return [...byName.values()];
}

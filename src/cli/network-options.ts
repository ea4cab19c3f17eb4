/**
 * The network flags of `petload run` as the parser sees them (docs/cli.md, "Staging networks"): names and
 * descriptions only, loaded with every command. What they mean is read when a run starts (./network-flags.ts).
 */
import type { Argv } from 'yargs';

export interface NetworkArgs {
  target?: string;
  header?: string[];
  'header-secret'?: string[];
  ca?: string;
  'client-cert'?: string;
  'client-key'?: string;
  http2?: boolean;
}

export function networkOptions(y: Argv): Argv {
  return y
    .option('header', {
      type: 'string',
      array: true,
      requiresArg: true,
      describe: "an extra header of every request, 'Name: value' (repeatable; never Authorization)",
    })
    .option('header-secret', {
      type: 'string',
      array: true,
      requiresArg: true,
      describe: 'an extra header whose value is a secret read from an environment variable, Name=VARIABLE (repeatable)',
    })
    .option('ca', {
      type: 'string',
      requiresArg: true,
      describe: "--target's CA certificates (PEM file), trusted besides node's own",
    })
    .option('client-cert', {
      type: 'string',
      requiresArg: true,
      describe: 'a client certificate (PEM file) for mutual TLS, with --client-key',
    })
    .option('client-key', { type: 'string', requiresArg: true, describe: "the client certificate's key (PEM file)" })
    .option('http2', { type: 'boolean', describe: 'offer HTTP/2 to an https --target (negotiated by ALPN)' });
}

/**
 * Keys never belong on the command line: it lands in shell history, process lists and CI logs. Before the
 * command line is parsed (so before any message could echo part of it), every argument is compared with the
 * keys of the keys file it names or the environment names, and the command is refused if one carries a key.
 */
import type { KeyEntry } from '../config/keys-file.js';
import { PetloadError } from '../core/errors.js';

/** The value of `--keys-file F`, `--keys-file=F` (or the camel-cased spelling yargs also accepts). */
function keysFileArg(argv: readonly string[]): string | undefined {
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    for (const flag of ['--keys-file', '--keysFile']) {
      if (a === flag) return argv[i + 1];
      if (a.startsWith(`${flag}=`)) return a.slice(flag.length + 1);
    }
  }
  return undefined;
}

/**
 * The keys a command line might carry by mistake: those of --keys-file, else PETLOAD_KEYS_FILE, else
 * PETLOAD_KEYS (the order `run` reads them in). A source that cannot be read gives none: reporting it is the
 * command's business, with the right message, once the command line is parsed. Only the entries are read:
 * their figures may depend on a plans file or scenario, which is the command's business too. The keys file's
 * reader (and its schema) is imported only when a source is named, so that a command line without keys starts
 * without it.
 */
export async function keysNamedBy(argv: readonly string[], env: NodeJS.ProcessEnv): Promise<KeyEntry[]> {
  const file = keysFileArg(argv) ?? env.PETLOAD_KEYS_FILE;
  if (!file && !env.PETLOAD_KEYS) return [];
  try {
    const { loadKeyEntries, parseKeyEntriesText } = await import('../config/keys-file.js');
    if (file) return loadKeyEntries(file);
    if (env.PETLOAD_KEYS) return parseKeyEntriesText(env.PETLOAD_KEYS, 'PETLOAD_KEYS');
  } catch {
    // See above: the command reports it.
  }
  return [];
}

/** Throws E_KEYS_ON_ARGV, naming the key by its label only, if an argument contains one of `keys`. */
export function refuseKeysOnArgv(argv: readonly string[], keys: readonly Pick<KeyEntry, 'secret' | 'label'>[]): void {
  for (const k of keys) {
    const i = argv.findIndex((a) => a.includes(k.secret));
    if (i !== -1) {
      throw new PetloadError(
        'E_KEYS_ON_ARGV',
        `argument ${i + 1} of the command line contains the API key ${k.label}; keys are never given on the command line (they would land in shell history and process lists)`,
      );
    }
  }
}

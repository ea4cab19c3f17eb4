/**
 * For a command that parses a few documents and exits (validate, report, k8s, merge, compare, trend): zod without
 * its compiled fast path. zod compiles a parser for each object schema the first time it parses one, which pays
 * back over many parses (a run validates every response) and costs more than it saves over a few: reading a
 * report.json took 40 ms with it and 15 without, measured in `petload report` on this project's machine.
 * Results are the same either way. Commands import this module when they run (`import('zod')` as a whole would
 * keep the CLI's bundle from leaving out the parts of zod that petload never uses).
 */
import { config } from 'zod';

export function parseWithoutCompiling(): void {
  config({ jitless: true });
}

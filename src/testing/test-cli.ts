/**
 * The CLI the tests run (src/testing/cli.ts): bundled from the TypeScript sources by the global set-up, once per
 * vitest process, as `npm run build` bundles the compiled code (scripts/bundle-cli.js), into `.test-cli/<pid>/` of
 * the checkout: two folders below it, as the bundle's code expects (it finds `scenarios/` and `package.json` from its
 * own place). A CLI run then costs what a user's does, not a TypeScript loader's compilation of some three hundred
 * modules (about half a second of CPU each, over some 170 runs). Folders of vitest processes that are gone
 * are removed.
 */
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleCli } from '../../scripts/bundle-cli.js';

const ROOT = fileURLToPath(new URL('../../.test-cli/', import.meta.url));
const SOURCES = fileURLToPath(new URL('../cli/main.ts', import.meta.url));

/** Whether process `pid` is alive (signal 0 tests it; EPERM: alive, another user's). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Bundles the sources for this process (once: both projects' set-ups share it); `remove` deletes the folder. */
export async function bundleTestCli(): Promise<{ entry: string; remove: () => void }> {
  const dir = join(ROOT, String(process.pid));
  const entry = join(dir, 'petload.js');
  const remove = () => rmSync(dir, { recursive: true, force: true });
  if (existsSync(entry)) return { entry, remove };
  for (const name of existsSync(ROOT) ? readdirSync(ROOT) : []) {
    if (!alive(Number(name))) rmSync(join(ROOT, name), { recursive: true, force: true });
  }
  await bundleCli(SOURCES, dir);
  return { entry, remove };
}

/**
 * --timeout bounds the first request of a run too: a target that accepts connections and never answers stops the
 * run after about the timeout given (it waited 5 s whatever the flag said, the reachability check's own figure).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { PUBLISHED_FIGURES } from '../api/plans.js';
import { loadScenario } from '../config/load-scenario.js';
import { EXIT } from '../core/errors.js';
import { runScenario } from './run.js';
import { makeKeys } from './target.js';

const dir = mkdtempSync(join(tmpdir(), 'petload-timeout-'));
const sockets = new Set<Socket>();
const silent = createServer((s) => {
  sockets.add(s);
  s.on('close', () => sockets.delete(s));
});
afterAll(async () => {
  for (const s of sockets) s.destroy();
  await new Promise((resolve) => silent.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});

it('aborts after --timeout (here 1 s), not after 5 s, against a target that never answers', async () => {
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  const { port } = silent.address() as { port: number };
  const started = performance.now();
  const result = await runScenario({
    scenario: loadScenario('smoke'),
    target: {
      kind: 'external',
      url: `http://127.0.0.1:${port}/v1`,
      keys: makeKeys(['free'], 1, false, PUBLISHED_FIGURES),
    },
    reportDir: dir,
    timeoutMs: 1000,
  });
  const ms = performance.now() - started;
  expect(result.exitCode).toBe(EXIT.aborted);
  expect(result.report.abortReason).toContain('no HTTP response within 1000 ms');
  // The timeout, plus what a run costs before and after it (the report written): well under the old 5 s.
  expect(ms).toBeGreaterThanOrEqual(975);
  expect(ms).toBeLessThan(3500);
});

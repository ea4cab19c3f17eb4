/**
 * A secret header's value (RunOptions.network, `secretEnv`, --header-secret) reaches the target and nothing else:
 * a target that echoes it back in its error bodies gets its evidence into the report with the value hidden, as a
 * key is.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { PUBLISHED_FIGURES } from '../api/plans.js';
import { parseScenarioText } from '../config/load-scenario.js';
import { filesUnder } from '../testing/secrets.js';
import { runScenario } from './run.js';
import { makeKeys } from './target.js';

const SECRET = 'gw_secret_value_0123456789';
const dir = mkdtempSync(join(tmpdir(), 'petload-header-secret-'));
const seen: (string | undefined)[] = [];
const echo = createServer((req, res) => {
  const token = req.headers['x-gateway-token'] as string | undefined;
  seen.push(token);
  const body = JSON.stringify({ code: 'unauthorized', message: `you sent ${token}`, status: 0 });
  res.writeHead(401, { 'content-type': 'application/json', 'www-authenticate': 'Bearer' }).end(body);
});
afterAll(async () => {
  echo.closeAllConnections();
  await new Promise((resolve) => echo.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});

it("hides a secret header's value that the target echoes, in every report file and event", async () => {
  await new Promise<void>((resolve) => echo.listen(0, '127.0.0.1', resolve));
  const lines: string[] = [];
  const result = await runScenario({
    scenario: parseScenarioText('name: echo\ndescription: d\nprobes: [auth]\n', 'echo.yaml'),
    target: {
      kind: 'external',
      url: `http://127.0.0.1:${(echo.address() as AddressInfo).port}/v1`,
      keys: makeKeys(['free'], 1, false, PUBLISHED_FIGURES),
      network: { headers: [{ name: 'x-gateway-token', value: SECRET, secret: true }] },
    },
    reportDir: dir,
    log: (l) => lines.push(l),
    notice: (l) => lines.push(l),
  });
  expect(seen.length).toBeGreaterThan(3);
  expect(seen.every((t) => t === SECRET)).toBe(true);
  // Every file of the report folder, repro/ scripts included (written when the run fails a check).
  const files = filesUnder(dir).map((f) => f.text);
  const everything = [...files, ...lines].join('\n');
  expect(everything).not.toContain(SECRET);
  expect(everything).not.toContain(SECRET.slice(0, 14));
  // The echo reached the evidence, hidden behind the header's name.
  expect(JSON.stringify(result.report.checks)).toContain('you sent [header x-gateway-token]');
});

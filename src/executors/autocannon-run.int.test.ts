/**
 * A failure inside autocannon while it runs (an exception thrown in one of its socket handlers, where no caller can
 * catch it) is the run's tool error, E_INTERNAL, not the process's end. In a child process: the test runner treats
 * any uncaught exception in its own process as a failure of the suite.
 */
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const RUNNER = fileURLToPath(new URL('./autocannon-run.ts', import.meta.url));

describe('runAutocannon', () => {
  it('turns an exception inside autocannon while it runs into E_INTERNAL, and the process goes on', async () => {
    const server = createServer((_req, res) => res.end('[]'));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const { port } = server.address() as { port: number };
    // onResponse runs inside autocannon's socket data handler: its throw reaches no caller.
    const script = `
      const { register } = await import('tsx/esm/api');
      register();
      const { runAutocannon } = await import(${JSON.stringify(RUNNER)});
      const requests = [{ method: 'GET', path: '/', onResponse() { throw new Error('boom in a handler'); } }];
      const options = { url: 'http://127.0.0.1:${port}', connections: 1, duration: 2, requests };
      const on = { response() {}, error() {} };
      try {
        await runAutocannon(options, new AbortController().signal, on);
        console.log('resolved');
      } catch (e) {
        console.log(JSON.stringify({ code: e.code, message: e.message }));
      }
      setTimeout(() => { console.log('still alive'); process.exit(0); }, 100);
    `;
    // Not spawnSync: the server answering the child lives in this process.
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    const killer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    const status = await new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    clearTimeout(killer);
    server.close();
    expect(status).toBe(0);
    const lines = stdout.trim().split('\n');
    expect(JSON.parse(lines[0]!)).toEqual({
      code: 'E_INTERNAL',
      message: 'autocannon failed while it ran: boom in a handler',
    });
    expect(lines[1]).toBe('still alive');
  });
});

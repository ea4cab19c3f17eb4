/**
 * Hostile targets on the wire: a TLS server whose certificate no one vouches for gets no request (the handshake
 * fails, the run aborts, exit 3, and says why); a target that compresses its bodies (`Content-Encoding: gzip`,
 * which petload never asks for) has them judged as the bytes they are, never inflated.
 */
import { createServer } from 'node:https';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { REPORT_FILES, readReportJson, runCli, scratch, STACK_LINE } from '../testing/cli.js';
import { checkOf, runAgainstHostile } from '../testing/hostile/harness.js';
import { SELF_SIGNED_CERT, SELF_SIGNED_KEY } from '../testing/hostile/self-signed.js';
import type { Behaviour } from '../testing/hostile/server.js';
import { writeAnswer } from '../testing/hostile/server.js';

/** Every API answer's body gzipped, with `Content-Encoding: gzip` (bigger than any body the run keeps, once inflated). */
const gzipBodies: Behaviour = async (r) => {
  const a = await r.honest();
  if (!r.req.target.startsWith('/v1/pets') || a.body.length === 0) return writeAnswer(r.socket, a);
  const headers: [string, string][] = [...a.headers, ['Content-Encoding', 'gzip']];
  writeAnswer(r.socket, { ...a, headers, body: gzipSync(a.body) });
};

describe.concurrent('hostile targets: the wire', () => {
  it('a self-signed certificate: no request is sent, the run aborts naming it, exit 3, every report written', async () => {
    let requests = 0;
    const server = createServer({ key: SELF_SIGNED_KEY, cert: SELF_SIGNED_CERT }, (_req, res) => {
      requests++;
      res.end('{}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as { port: number };
      const s = scratch('petload-tls-');
      const keys = s.keys([{ key: 'sk_test_0123456789abcdef', plan: 'free' }]);
      const dir = `${s.dir}/report`;
      const target = `https://127.0.0.1:${port}/v1`;
      const r = await runCli(['run', 'smoke', '--target', target, '--keys-file', keys, '--report-dir', dir, '--quiet']);
      expect(r.code).toBe(3);
      expect(r.stderr).not.toMatch(STACK_LINE);
      expect(r.stderr).toContain(
        `target ${target} is unreachable: self-signed certificate (DEPTH_ZERO_SELF_SIGNED_CERT)`,
      );
      expect(requests).toBe(0);
      expect(readReportJson(dir).verdict).toBe('aborted');
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it('gzipped bodies are judged as the bytes they are, never inflated', async () => {
    const run = await runAgainstHostile(gzipBodies);
    expect(run.cli.stderr).not.toMatch(STACK_LINE);
    expect(run.files).toEqual([...REPORT_FILES]);
    const t = checkOf(run.report, 'contract.transport');
    expect(t.status).toBe('fail');
    expect(t.evidence[0]!.message).toMatch(/^the body declared application\/json does not parse: /);
    // The excerpt is of the compressed bytes (gzip's magic number, read as text), not of the JSON inside.
    expect(t.evidence[0]!.body).toMatch(/^\x1f/);
    expect(t.evidence.some((e) => e.body?.includes('"items"'))).toBe(false);
  });
});

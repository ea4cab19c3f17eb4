/**
 * Hostile targets, bodies without end: a target that answers every API request with a chunked body that never
 * ends. The saturate executor (autocannon) keeps no body: it counts each answer's bytes and stops at the read
 * cap, so the capacity run ends by itself, with bounded memory, and writes its report with the reason. Before,
 * autocannon kept each body whole as a string: about 1 GB in 9 s, then an uncaught RangeError and no report.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseKeys } from '../config/keys-file.js';
import { createReferenceServer } from '../reference-server/index.js';
import { readReportJson, REPORT_FILES, reportFilesIn, scratch, STACK_LINE, startCli } from '../testing/cli.js';
import { startHostileServer, writeAnswer, type Behaviour } from '../testing/hostile/server.js';

const KEY = 'SECRET-business-8c1d2e3f4a5b6c7d';

/** Non-API requests (the reachability check) answered honestly; every API request gets an endless chunked body. */
const endlessBody: Behaviour = async (r) => {
  const a = await r.honest();
  if (!r.req.target.startsWith('/v1/pets')) return writeAnswer(r.socket, a);
  const socket = r.socket;
  const head = ['HTTP/1.1 200 OK', 'Content-Type: application/json', 'Transfer-Encoding: chunked', '', ''];
  socket.write(head.join('\r\n'));
  const piece = '{"id":1,"name":"x","categoryId":1},'.repeat(1800);
  const chunk = Buffer.from(`${piece.length.toString(16)}\r\n${piece}\r\n`);
  await new Promise<void>((resolve) => {
    const pump = () => {
      while (!socket.destroyed) if (!socket.write(chunk)) return void socket.once('drain', pump);
      resolve();
    };
    socket.once('close', () => resolve());
    socket.write('1\r\n[\r\n');
    pump();
  });
};

/** The child's peak resident set (VmHWM, kB) as last read from /proc, polled until it exits. */
function watchPeakRss(pid: number): () => number {
  let peak = 0;
  const read = () => {
    try {
      const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
      if (m) peak = Math.max(peak, Number(m[1]));
    } catch {
      // The child has exited.
    }
  };
  const timer = setInterval(read, 50);
  return () => {
    clearInterval(timer);
    return peak;
  };
}

describe('a target whose bodies never end', () => {
  it('capacity: saturate stops at the read cap, memory stays bounded, the report says why', async () => {
    const keys = parseKeys({ keys: [{ key: KEY, plan: 'business' }] }, 'test');
    const upstream = await createReferenceServer({ keys });
    const hostile = await startHostileServer(upstream.url, endlessBody);
    try {
      const s = scratch('petload-endless-');
      const dir = `${s.dir}/report`;
      const args = ['run', 'capacity', '--duration', '12s', '--target', hostile.url, '--report-dir', dir, '--quiet'];
      const cli = startCli([...args, '--keys-file', s.keys([{ key: KEY, plan: 'business' }])], {
        killAfterMs: 25_000,
      });
      const peak = watchPeakRss(cli.child.pid!);
      const r = await cli.done;
      const peakMb = peak() / 1024;
      expect(r.signal).toBeNull();
      expect(r.stderr).not.toMatch(STACK_LINE);
      expect(r.stderr).not.toContain('RangeError');
      // Ended by itself well before its 12 s, at the first body over the cap.
      expect(readReportJson(dir).durationMs).toBeLessThan(8000);
      expect(peakMb).toBeLessThan(400);
      expect(reportFilesIn(dir)).toEqual([...REPORT_FILES]);
      const report = readReportJson(dir);
      expect(report.exitCode).toBe(r.code);
      expect(report.notes.join('\n')).toMatch(
        /load phase 1 \(saturate\) \[business\]: an answer's body passed \d+ bytes, over the 1048576-byte read cap/,
      );
      const capacity = report.checks.find((c) => c.id === 'load.capacity');
      expect(JSON.stringify(capacity)).toContain('1048576-byte read cap');
    } finally {
      await hostile.close();
      await upstream.close();
    }
  });
});

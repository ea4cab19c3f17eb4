/**
 * Hostile files in a report directory, and hostile text in a target's answers, through the real CLI:
 * - symbolic links planted where the journal and the report files go are never followed (the journal refuses a
 *   link, dangling or not, and a FIFO; a report file replaces the link itself, never its target);
 * - a report.json whose histogram is a deflate bomb (7 MB inflating to 1 GiB) is refused, naming the file and the
 *   histogram, by `petload report` and `petload compare`, without inflating it;
 * - a journal whose intervals go from 1e12 ms back to 0 is refused by `report --recover`, naming the line, and
 *   one whose histogram is a deflate bomb, naming the interval and the histogram;
 * - `report --recover` never replaces a complete report.json of the same run (killed between its two writes);
 * - C1 control characters a target puts in its headers and bodies, and an ESC put into a report.json by hand,
 *   never stand raw in summary.md, junit.xml or report.html.
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, lstatSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Behaviour } from '../testing/hostile/server.js';
import { writeAnswer } from '../testing/hostile/server.js';
import { runAgainstHostile } from '../testing/hostile/harness.js';
import { REPORT_FILES, runCli, scratch, STACK_LINE } from '../testing/cli.js';

/**
 * A zlib stream of `pairs` × 258 + 1 zero bytes, built bit by bit (deflating the zeros with zlib would take
 * seconds): one fixed-Huffman block, a literal 0, then copies of 258 bytes at distance 1, 13 bits each.
 */
function zeroBomb(pairs: number): Buffer {
  const out = Buffer.alloc(Math.ceil((3 + 8 + pairs * 13 + 7) / 8) + 2 + 4 + 1);
  out[0] = 0x78;
  out[1] = 0x01;
  let pos = 2;
  let acc = 0;
  let n = 0;
  const bits = (v: number, len: number) => {
    acc |= v << n;
    n += len;
    while (n >= 8) {
      out[pos++] = acc & 0xff;
      acc >>>= 8;
      n -= 8;
    }
  };
  // Huffman codes are sent most significant bit first: reversed into the stream's LSB-first order.
  const reversed = (c: number, len: number) => {
    let r = 0;
    for (let i = 0; i < len; i++) r |= ((c >> i) & 1) << (len - 1 - i);
    return r;
  };
  bits(1, 1); // the last block
  bits(1, 2); // fixed Huffman codes
  bits(reversed(0x30, 8), 8); // literal 0
  const length258 = reversed(0b11000101, 8); // code 285
  for (let i = 0; i < pairs; i++) {
    bits(length258, 8);
    bits(0, 5); // distance code 0: distance 1
  }
  bits(0, 7); // end of block (code 256)
  if (n > 0) out[pos++] = acc & 0xff;
  const total = pairs * 258 + 1;
  out.writeUInt32BE(((total % 65521) * 65536 + 1) >>> 0, pos); // Adler-32 of `total` zeros
  return out.subarray(0, pos + 4);
}

/** An HDR histogram's compressed base64 form around a zlib stream. */
function asHistogram(zlib: Buffer): string {
  const head = Buffer.alloc(8);
  head.writeInt32BE(0x1c849304 | 0x10, 0);
  head.writeInt32BE(zlib.length, 4);
  return Buffer.concat([head, zlib]).toString('base64');
}

/** Control characters that must not stand raw in a rendered file (tab, line feed and carriage return may). */
const RAW_CONTROL = /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]/;

describe.concurrent('hostile files', () => {
  const s = scratch('petload-hostile-files-');
  const base = join(s.dir, 'base');
  const victims = { json: join(s.dir, 'victim.json'), junit: join(s.dir, 'victim.xml'), md: join(s.dir, 'victim.md') };
  let run: Awaited<ReturnType<typeof runCli>>;

  beforeAll(async () => {
    // A run's report directory with its report files planted as links: two to files, two dangling.
    mkdirSync(base);
    writeFileSync(victims.junit, 'keep me\n');
    writeFileSync(victims.md, 'keep me too\n');
    symlinkSync(victims.json, join(base, 'report.json'));
    symlinkSync(victims.junit, join(base, 'junit.xml'));
    symlinkSync(victims.md, join(base, 'summary.md'));
    symlinkSync(join(s.dir, 'victim.html'), join(base, 'report.html'));
    run = await runCli(['run', 'smoke', '--duration', '1s', '--report-dir', base, '--quiet']);
  });

  it('report files planted as links: each link is replaced by the file, its target never touched', () => {
    // The verdict is the embedded server's (a pass); what matters here is where the files went.
    expect([0, 1], run.stderr).toContain(run.code);
    for (const f of REPORT_FILES) expect(lstatSync(join(base, f)).isFile(), f).toBe(true);
    expect(existsSync(victims.json)).toBe(false);
    expect(existsSync(join(s.dir, 'victim.html'))).toBe(false);
    expect(readFileSync(victims.junit, 'utf8')).toBe('keep me\n');
    expect(readFileSync(victims.md, 'utf8')).toBe('keep me too\n');
  });

  it.each([
    ['dangling', false],
    ['to a finished journal', true],
  ])('a journal planted as a link %s is refused before anything is sent', async (_how, toFile) => {
    const dir = join(s.dir, `link-${toFile}`);
    const target = join(s.dir, `journal-target-${toFile}.ndjson`);
    mkdirSync(dir);
    const finished = '{"type":"end","at":1,"verdict":"pass","exitCode":0}\n';
    if (toFile) writeFileSync(target, finished);
    symlinkSync(target, join(dir, 'journal.ndjson'));
    const r = await runCli(['run', 'smoke', '--duration', '1s', '--report-dir', dir]);
    expect(r.code).toBe(2);
    expect(r.stderr).not.toMatch(STACK_LINE);
    expect(r.stderr).toContain(
      `cannot write the journal ${dir}/journal.ndjson: it is a symbolic link, and petload never writes through one`,
    );
    if (toFile) expect(readFileSync(target, 'utf8')).toBe(finished);
    else expect(existsSync(target)).toBe(false);
    expect(lstatSync(join(dir, 'journal.ndjson')).isSymbolicLink()).toBe(true);
  });

  it('a FIFO planted as the journal is refused, instead of blocking the run as it opens it', async () => {
    const dir = join(s.dir, 'fifo');
    mkdirSync(dir);
    execFileSync('mkfifo', [join(dir, 'journal.ndjson')]);
    // A blocked open never ends: the kill only has to come after the slowest start of the CLI on a busy machine (the
    // tests of this file took 15 to 22 s each in a full run on a slow machine), not soon.
    const r = await runCli(['run', 'smoke', '--duration', '1s', '--report-dir', dir], { killAfterMs: 45_000 });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`cannot write the journal ${dir}/journal.ndjson: it is not a regular file`);
  }, 60_000);

  it('a histogram that is a deflate bomb is refused by report and compare, naming the file and the histogram', async () => {
    const dir = join(s.dir, 'bomb');
    mkdirSync(dir);
    const report = JSON.parse(readFileSync(join(base, 'report.json'), 'utf8'));
    const bomb = zeroBomb(4_200_000); // 6.8 MB inflating to 1 GiB
    expect(bomb.length).toBeLessThan(8 * 1024 * 1024);
    report.operations[0].histograms.all = asHistogram(bomb);
    const file = join(dir, 'report.json');
    writeFileSync(file, JSON.stringify(report));
    const [rendered, compared] = await Promise.all([
      runCli(['report', file, '--out', join(dir, 'out')]),
      runCli(['compare', join(base, 'report.json'), file, '--out', join(dir, 'cmp')]),
    ]);
    for (const r of [rendered, compared]) {
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).not.toMatch(STACK_LINE);
      expect(r.stderr).toContain(`${file}: not a valid petload report`);
      expect(r.stderr).toMatch(
        /operations\[0\]\.histograms\.all: not a petload histogram: it inflates to more than \d+ bytes/,
      );
    }
    expect(existsSync(join(dir, 'out'))).toBe(false);
  });

  it('a journal whose intervals go from 1e12 ms back to 0 is refused, naming the line', async () => {
    const dir = join(s.dir, 'time-travel');
    mkdirSync(dir);
    const [head, interval] = readFileSync(join(base, 'journal.ndjson'), 'utf8').split('\n');
    const iv = JSON.parse(interval!);
    const at = (from: number) => JSON.stringify({ ...iv, from, to: from + 1000 });
    writeFileSync(join(dir, 'journal.ndjson'), `${head}\n${at(1e12)}\n${at(0)}\n`);
    const r = await runCli(['report', '--recover', dir]);
    expect(r.code).toBe(2);
    expect(r.stderr).not.toMatch(STACK_LINE);
    expect(r.stderr).toContain(`${dir}/journal.ndjson line 2 cannot be recovered: expected an interval's from and to`);
    expect(r.stderr).toContain('found from 1000000000000');
    expect(reportIn(dir)).toBe(false);
  });

  it('a journal whose histogram is a deflate bomb is refused, naming the interval and the histogram', async () => {
    const dir = join(s.dir, 'journal-bomb');
    mkdirSync(dir);
    const [head, interval] = readFileSync(join(base, 'journal.ndjson'), 'utf8').split('\n');
    const iv = JSON.parse(interval!);
    const op = Object.keys(iv.latency)[0]!;
    const cls = Object.keys(iv.latency[op])[0]!;
    iv.latency[op][cls] = asHistogram(zeroBomb(1_000_000)); // 1.6 MB inflating to 258 MB
    writeFileSync(join(dir, 'journal.ndjson'), `${head}\n${JSON.stringify(iv)}\n`);
    const r = await runCli(['report', '--recover', dir]);
    expect(r.code).toBe(2);
    expect(r.stderr).not.toMatch(STACK_LINE);
    expect(r.stderr).toContain(
      `${dir}/journal.ndjson cannot be recovered: in its interval from ${iv.from} ms, latency.${op}.${cls}: not a petload histogram: it inflates to more than`,
    );
    expect(reportIn(dir)).toBe(false);
  });

  it('recover never replaces the complete report of the same run (killed between report and end line)', async () => {
    const dir = join(s.dir, 'killed-late');
    mkdirSync(dir);
    for (const f of REPORT_FILES) copyFileSync(join(base, f), join(dir, f));
    const lines = readFileSync(join(base, 'journal.ndjson'), 'utf8').trimEnd().split('\n');
    expect(JSON.parse(lines.at(-1)!).type).toBe('end');
    writeFileSync(join(dir, 'journal.ndjson'), `${lines.slice(0, -1).join('\n')}\n`);
    const before = readFileSync(join(dir, 'report.json'), 'utf8');
    const r = await runCli(['report', '--recover', dir]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${dir}/report.json is this run's complete report (verdict `);
    expect(r.stderr).toContain('hint: Render it with `petload report');
    expect(readFileSync(join(dir, 'report.json'), 'utf8')).toBe(before);
    // Elsewhere (--out), the journal is recovered as always.
    const out = await runCli(['report', '--recover', dir, '--out', join(dir, 'recovered')]);
    expect(out.code).toBe(3);
    expect(JSON.parse(readFileSync(join(dir, 'recovered', 'report.json'), 'utf8')).verdict).toBe('aborted');
  });

  it('an ESC and C1 controls put into a report.json by hand never reach summary.md raw', async () => {
    const dir = join(s.dir, 'tampered');
    mkdirSync(dir);
    const report = JSON.parse(readFileSync(join(base, 'report.json'), 'utf8'));
    report.notes.push('\x1b[2J\x1b]0;owned\x07 and \x9b31m C1');
    report.scenario.description = 'smoke \x1b[31mred\x85';
    writeFileSync(join(dir, 'report.json'), JSON.stringify(report));
    const r = await runCli(['report', join(dir, 'report.json'), '--out', join(dir, 'out')]);
    expect([0, 1], r.stderr).toContain(r.code);
    for (const f of ['summary.md', 'junit.xml', 'report.html', 'report.json']) {
      const text = readFileSync(join(dir, 'out', f), 'utf8');
      expect(text, f).not.toMatch(RAW_CONTROL);
    }
    expect(readFileSync(join(dir, 'out', 'summary.md'), 'utf8')).toContain(
      '\\x{1b}\\[2J\\x{1b}\\]0;owned\\x{7} and \\x{9b}31m C1',
    );
    expect(r.stdout).not.toMatch(RAW_CONTROL);
  });
});

function reportIn(dir: string): boolean {
  return existsSync(join(dir, 'report.json'));
}

/** Error answers with C1 controls in a header the evidence keeps and in the body (whose wrong shape is evidence). */
const c1Everywhere: Behaviour = async (r) => {
  const a = await r.honest();
  if (!r.req.target.startsWith('/v1/pets') || a.status < 400) return writeAnswer(r.socket, a);
  const headers: [string, string][] = [...a.headers, ['WWW-Authenticate', 'Bearer realm="\x9b31mred\x85"']];
  const body = Buffer.from(JSON.stringify({ code: 'c1', message: 'bad \u009b2J\u0085 news', status: 0 }), 'utf8');
  writeAnswer(r.socket, { ...a, headers: headers.map(([n, v]) => [n, v]), body });
};

describe('C1 control characters from a target', () => {
  it('never stand raw in summary.md, junit.xml or report.html', async () => {
    const run = await runAgainstHostile(c1Everywhere);
    expect(run.files).toEqual([...REPORT_FILES]);
    const evidence = run.report.checks.flatMap((c) => c.byPlan.flatMap((p) => p.evidence));
    // They did reach the evidence: the scan below has something to find.
    expect(evidence.some((e) => e.headers?.['www-authenticate']?.includes('\x9b31m'))).toBe(true);
    expect(evidence.some((e) => e.body?.includes('\u009b2J'))).toBe(true);
    for (const f of REPORT_FILES) expect(readFileSync(join(run.dir, f), 'utf8'), f).not.toMatch(RAW_CONTROL);
    // Shown, as \x{9b}, where the evidence is shown in full.
    for (const f of ['junit.xml', 'report.html'])
      expect(readFileSync(join(run.dir, f), 'utf8'), f).toContain('\\x{9b}');
  });
});

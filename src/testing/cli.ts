/**
 * Test-only: run the real CLI in a child process and collect what a user would see, plus a scratch directory
 * with a keys file and a small scenario for runs against a loopback target.
 * Never imported by src. The CLI runs from its sources, bundled by the tests' global set-up (test-cli.ts), so tests
 * need no build; the packaging test (src/package.int.test.ts) runs the compiled one from an installed tarball.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { inject } from 'vitest';
import { ReportSchema, type Report } from '../report/schema.js';

/**
 * The CLI: bundled from the sources by the global set-up (test-cli.ts); outside a vitest run with that set-up, the
 * sources through tsx (bin/petload-src.js).
 */
export const BIN = cliEntry() ?? resolve(fileURLToPath(new URL('../../bin/petload-src.js', import.meta.url)));

function cliEntry(): string | undefined {
  try {
    return inject('petloadCli');
  } catch {
    return undefined;
  }
}

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** Real ms from spawn to exit. */
  ms: number;
}

export interface CliRun {
  readonly child: ChildProcess;
  /** Resolves when some stderr output matches (or the child exits first: rejects). */
  waitForStderr(pattern: RegExp): Promise<void>;
  readonly done: Promise<CliResult>;
}

/** Start `petload ...args`. `killAfterMs` bounds the child's life (SIGKILL), so that no test can hang on it. */
export function startCli(
  args: readonly string[],
  options: { env?: NodeJS.ProcessEnv; cwd?: string; killAfterMs?: number } = {},
): CliRun {
  const started = performance.now();
  const child = spawn(process.execPath, [BIN, ...args], {
    cwd: options.cwd ?? process.cwd(),
    // GITHUB_STEP_SUMMARY only when a test gives it: tests run inside GitHub Actions must not write its summary.
    env: { ...process.env, GITHUB_STEP_SUMMARY: undefined, NO_COLOR: '1', ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  const waiters: { pattern: RegExp; resolve: () => void; reject: (e: Error) => void }[] = [];
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => {
    stderr += d;
    for (const w of waiters.splice(0)) {
      if (w.pattern.test(stderr)) w.resolve();
      else waiters.push(w);
    }
  });
  // As long as a test may last (vitest.config.ts): a child never outlives its test.
  const killer = setTimeout(() => child.kill('SIGKILL'), options.killAfterMs ?? 30_000);
  const done = new Promise<CliResult>((resolveDone) => {
    child.on('close', (code, signal) => {
      clearTimeout(killer);
      for (const w of waiters.splice(0))
        w.reject(new Error(`petload exited (${code ?? signal}) before stderr matched ${w.pattern}:\n${stderr}`));
      resolveDone({ code, signal, stdout, stderr, ms: performance.now() - started });
    });
  });
  return {
    child,
    done,
    waitForStderr: (pattern) =>
      new Promise<void>((res, rej) => {
        if (pattern.test(stderr)) res();
        else waiters.push({ pattern, resolve: res, reject: rej });
      }),
  };
}

export function runCli(
  args: readonly string[],
  options: { env?: NodeJS.ProcessEnv; cwd?: string; killAfterMs?: number } = {},
): Promise<CliResult> {
  return startCli(args, options).done;
}

/** A stack trace line, as node prints them. */
export const STACK_LINE = /^\s+at .+\(?.*:\d+:\d+\)?$/m;

export const REPORT_FILES = ['report.json', 'junit.xml', 'summary.md', 'report.html'] as const;

/** The report files of a directory that exist. */
export function reportFilesIn(dir: string): string[] {
  return REPORT_FILES.filter((f) => existsSync(join(dir, f)));
}

/** report.json of a directory, validated against its schema. */
export function readReportJson(dir: string): Report {
  return ReportSchema.parse(JSON.parse(readFileSync(join(dir, 'report.json'), 'utf8')));
}

export interface Scratch {
  readonly dir: string;
  /** Write a file into the scratch directory; returns its path. */
  file(name: string, text: string): string;
  /** A keys file of the given entries. */
  keys(
    entries: readonly { key: string; plan: string; sacrificial?: boolean; perMinute?: number; perDay?: number }[],
  ): string;
}

export function scratch(prefix = 'petload-test-'): Scratch {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const file = (name: string, text: string) => {
    const p = join(dir, name);
    writeFileSync(p, text);
    return p;
  };
  return { dir, file, keys: (entries) => file('keys.json', JSON.stringify({ keys: entries })) };
}

/** A loopback server that counts what reaches it and answers nothing of the API: a target nothing may reach. */
export async function countingServer() {
  let requests = 0;
  const server = createServer((_req, res) => {
    requests++;
    res.end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  return { url, requests: () => requests, close: () => new Promise<void>((r) => server.close(() => r())) };
}

/**
 * `petload serve --port 0 ...args` on loopback; resolves with its URL once it listens, and what it printed. `stop` is
 * called when the test is over (pass `ctx.onTestFinished`, or an afterAll): the server is killed then.
 */
export async function startServe(
  args: readonly string[],
  stop: (kill: () => void) => void,
): Promise<{ url: string; output: () => string }> {
  const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  stop(() => void child.kill('SIGKILL'));
  let output = '';
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (output += d));
  const first = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`serve exited with ${code}: ${output}`)));
  });
  output += `${first}\n`;
  return { url: first.replace(/^listening /, ''), output: () => output };
}

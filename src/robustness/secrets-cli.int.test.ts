/**
 * Secrets through the real CLI: what `petload run` prints on stdout and stderr and writes into its reports never
 * holds any part of a key, against `petload serve` and against a target that echoes the credential back; and a
 * key given on the command line is refused, pointing to the keys file, without being echoed.
 */
import { describe, expect, it, type TestContext } from 'vitest';
import { REPORT_FILES, reportFilesIn, runCli, scratch, STACK_LINE, startServe } from '../testing/cli.js';
import { echoCredential } from '../testing/hostile/behaviours.js';
import { HOSTILE_KEY, runAgainstHostile } from '../testing/hostile/harness.js';
import { filesUnder, findSecret, recognisableKey } from '../testing/secrets.js';

/** `petload serve --port 0 --keys-file F`; resolves with its URL and what it printed. */
const serve = (ctx: TestContext, keysFile: string) =>
  startServe(['--keys-file', keysFile], (kill) => ctx.onTestFinished(kill));

// Each case has its own target and child processes: they run side by side.
describe.concurrent('the CLI never shows a key', () => {
  it('in stdout, stderr or any report of a run against `petload serve`, remote treatment included', async (ctx) => {
    const secrets = [recognisableKey('free'), recognisableKey('pro')];
    const s = scratch('petload-secrets-');
    const keysFile = s.keys([
      { key: secrets[0]!, plan: 'free' },
      { key: secrets[1]!, plan: 'pro' },
    ]);
    const server = await serve(ctx, keysFile);
    const dir = `${s.dir}/report`;
    const r = await runCli(['run', 'burst', '--target', server.url, '--keys-file', keysFile, '--report-dir', dir], {
      env: { PETLOAD_TREAT_AS_REMOTE: '1' },
    });
    expect(r.code).not.toBe(4);
    expect(r.stderr).toContain('against the remote target');
    expect(reportFilesIn(dir)).toEqual([...REPORT_FILES]);
    expect(findSecret(`${r.stdout}\n${r.stderr}\n${server.output()}`, secrets)).toBeNull();
    for (const f of filesUnder(dir)) expect(findSecret(f.text, secrets), f.path).toBeNull();
    // The keys are there, by label (last four characters).
    expect(r.stdout).toContain(`free#1 (…${secrets[0]!.slice(-4)})`);
  });

  it('even when the target echoes the credential in headers and bodies', async () => {
    const run = await runAgainstHostile(echoCredential);
    expect(run.files).toEqual([...REPORT_FILES]);
    expect(findSecret(`${run.cli.stdout}\n${run.cli.stderr}`, [HOSTILE_KEY])).toBeNull();
    for (const f of filesUnder(run.dir)) expect(findSecret(f.text, [HOSTILE_KEY]), f.path).toBeNull();
    // The failures' reproduction scripts were among the files scanned: they name the key by its variable only.
    const scripts = filesUnder(run.dir).filter((f) => /[\\/]repro[\\/][^\\/]+\.sh$/.test(f.path));
    expect(scripts.length).toBeGreaterThan(0);
    expect(scripts.some((f) => f.text.includes('need PETLOAD_KEY_FREE_1'))).toBe(true);
    // The echoed bodies did reach the evidence: the scan above had something to find.
    const shape = run.report.checks.find((c) => c.id === 'contract.error-shape')!;
    expect(shape.status).toBe('fail');
    expect(shape.byPlan[0]!.evidence[0]!.body).toMatch(/ you sent Bearer /);
    // The excerpt cut the echoed key after 22 of its 28 characters: that piece is hidden behind the key's label.
    expect(shape.byPlan[0]!.evidence[0]!.body).toMatch(/ you sent Bearer \[key free#1 \(…4f60\)\]…$/);
  });
});

describe.concurrent('keys on the command line are refused', () => {
  const secret = recognisableKey('free');
  const s = scratch('petload-argv-');
  const keysFile = s.keys([{ key: secret, plan: 'free' }]);
  const target = ['--target', 'http://127.0.0.1:9/v1', '--keys-file', keysFile];

  it.each([
    ['as --key', ['run', 'smoke', '--key', secret]],
    ['as a scenario name', ['run', secret, ...target]],
    ['inside another flag', ['run', 'smoke', ...target, '--report-dir', `/tmp/${secret}`]],
    ['to serve', ['serve', '--keys-file', keysFile, secret]],
  ])('%s', async (_how, args) => {
    const r = await runCli(args);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^petload: .*(keys are never given|API keys are never given) on the command line/);
    expect(r.stderr).toContain('hint: Put keys in a keys file (--keys-file or PETLOAD_KEYS_FILE)');
    expect(r.stderr).not.toMatch(STACK_LINE);
    expect(findSecret(`${r.stdout}\n${r.stderr}`, [secret])).toBeNull();
  });
});

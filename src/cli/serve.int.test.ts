import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterEach, describe, expect, it } from 'vitest';
import { ErrorBody, Pet, Pets } from '../api/schemas.js';
import { BIN } from '../testing/cli.js';

const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null) c.kill('SIGKILL');
});

/** Starts `petload serve` and resolves with the child and its first stdout lines. */
function serve(args: string[], lines: number): Promise<{ child: ChildProcess; lines: string[] }> {
  const child = spawn(process.execPath, [BIN, 'serve', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  return new Promise((resolve, reject) => {
    const got: string[] = [];
    const rl = createInterface({ input: child.stdout! });
    rl.on('line', (line) => {
      got.push(line);
      if (got.length === lines) resolve({ child, lines: got });
    });
    child.on('exit', (code) => reject(new Error(`serve exited with ${code} after ${JSON.stringify(got)}`)));
  });
}

function exited(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => child.on('exit', (code) => resolve(code)));
}

describe('petload serve', () => {
  it('prints the URL first, answers as the interface says, refuses the 61st request of a minute, and stops on SIGTERM', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'petload-serve-'));
    const keysFile = join(dir, 'keys.json');
    const secret = 'local-free-key-0001';
    writeFileSync(keysFile, JSON.stringify({ keys: [{ key: secret, plan: 'free' }] }));
    const { child, lines } = await serve(['--port', '0', '--keys-file', keysFile, '--time-scale', '60'], 1);
    expect(lines[0]).toMatch(/^listening http:\/\/127\.0\.0\.1:\d+\/v1$/);
    const url = lines[0]!.slice('listening '.length);
    const auth = { authorization: `Bearer ${secret}` };

    const list = await fetch(`${url}/pets`, { headers: auth });
    expect(list.status).toBe(200);
    expect(Pets.parse(await list.json()).length).toBe(20);
    for (const h of ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset'])
      expect(list.headers.get(h)).toMatch(/^\d+$/);

    const anonymous = await fetch(`${url}/pets`);
    expect(anonymous.status).toBe(401);
    expect(ErrorBody.parse(await anonymous.json()).status).toBe(401);

    const created = await fetch(`${url}/pets`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: '{"name":"Rex","categoryId":1}',
    });
    expect(created.status).toBe(201);
    expect(Pet.parse(await created.json()).name).toBe('Rex');
    const invalid = await fetch(`${url}/pets`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: '{"name":"Rex"}',
    });
    expect(invalid.status).toBe(400);
    await invalid.arrayBuffer();

    // Until a 429 (bounded): the window it refuses must have accepted exactly 60 requests.
    const acceptedPerReset = new Map<string, number>();
    let refusal: Response | undefined;
    for (let i = 0; i < 200 && refusal === undefined; i++) {
      const r = await fetch(`${url}/pets?limit=1`, { headers: auth });
      await r.arrayBuffer();
      const reset = r.headers.get('x-ratelimit-reset')!;
      if (r.status === 429) refusal = r;
      else acceptedPerReset.set(reset, (acceptedPerReset.get(reset) ?? 0) + 1);
    }
    expect(refusal?.status).toBe(429);
    expect(refusal!.headers.get('retry-after')).toMatch(/^[1-9]\d*$/);
    const reset = refusal!.headers.get('x-ratelimit-reset')!;
    // The first window also holds the first list and the create.
    const extra = reset === list.headers.get('x-ratelimit-reset') ? 2 : 0;
    expect((acceptedPerReset.get(reset) ?? 0) + extra).toBe(60);

    const exit = exited(child);
    child.kill('SIGTERM');
    expect(await exit).toBe(0);
  });

  it('without a keys file, prints one working local key per plan', async () => {
    const { child, lines } = await serve(['--port', '0'], 4);
    const url = lines[0]!.slice('listening '.length);
    const keys = lines.slice(1).map((l) => l.split(' '));
    expect(keys.map((k) => [k[0], k[1]])).toEqual([
      ['key', 'free'],
      ['key', 'pro'],
      ['key', 'business'],
    ]);
    const limits = [];
    for (const k of keys) {
      const r = await fetch(`${url}/pets?limit=1`, { headers: { authorization: `Bearer ${k[2]}` } });
      await r.arrayBuffer();
      limits.push(r.headers.get('x-ratelimit-limit'));
    }
    expect(limits).toEqual(['60', '300', '1000']);
    const exit = exited(child);
    child.kill('SIGINT');
    expect(await exit).toBe(0);
  });

  it('with a plans file, gives its generated keys those figures and enforces them', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'petload-serve-plans-'));
    const plansFile = join(dir, 'plans.yaml');
    writeFileSync(plansFile, 'plans:\n  pro: { perMinute: 3 }\n  free: { perDay: 2000 }\n');
    const { child, lines } = await serve(['--port', '0', '--plans-file', plansFile], 4);
    const url = lines[0]!.slice('listening '.length);
    const pro = lines
      .slice(1)
      .map((l) => l.split(' '))
      .find((k) => k[1] === 'pro')![2]!;
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) {
      const r = await fetch(`${url}/pets?limit=1`, { headers: { authorization: `Bearer ${pro}` } });
      await r.arrayBuffer();
      if (i === 0) expect(r.headers.get('x-ratelimit-limit')).toBe('3');
      statuses.push(r.status);
    }
    expect(statuses).toEqual([200, 200, 200, 429]);
    const exit = exited(child);
    child.kill('SIGINT');
    expect(await exit).toBe(0);
  });

  it("with a plans file, gives a keys file's keys without figures of their own the plan's figures", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'petload-serve-plans-'));
    const plansFile = join(dir, 'plans.yaml');
    const keysFile = join(dir, 'keys.json');
    writeFileSync(keysFile, JSON.stringify({ keys: [{ key: 'local-enterprise-0001', plan: 'enterprise' }] }));
    writeFileSync(plansFile, 'plans:\n  enterprise: { perMinute: 7, perDay: 70 }\n');
    const second = await serve(['--port', '0', '--plans-file', plansFile, '--keys-file', keysFile], 1);
    const r = await fetch(`${second.lines[0]!.slice('listening '.length)}/pets?limit=1`, {
      headers: { authorization: 'Bearer local-enterprise-0001' },
    });
    await r.arrayBuffer();
    expect(r.headers.get('x-ratelimit-limit')).toBe('7');
    const exit2 = exited(second.child);
    second.child.kill('SIGINT');
    expect(await exit2).toBe(0);
  });
});

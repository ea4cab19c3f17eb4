/**
 * The proof on one machine: three shard processes of the real CLI run at once, each with its own
 * JOB_COMPLETION_INDEX, against one reference server on loopback; `petload merge` combines their reports; one
 * process runs the same scenario against a second reference server (fresh quotas, same keys). The merged run must
 * give the same verdict and check outcomes, the same number of requests within 2 %, percentiles that are exactly
 * those of the shards' histograms added up (the histogram's own precision, nothing lost in the merge), and no key
 * used by two shards: checked from the reports and from the server's side, where a counting relay in front of the
 * shared server records which keys travel on each TCP connection (a connection belongs to one process).
 */
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import type { Socket } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseKeys } from '../config/keys-file.js';
import type { Report } from '../report/schema.js';
import { addInto, createHistogram, decodeHistogram, percentile, summarize } from '../metrics/histogram.js';
import { createReferenceServer, type ReferenceServer } from '../reference-server/index.js';
import { readReportJson, runCli, scratch } from '../testing/cli.js';

const SHARDS = 3;
const KEYS_PER_PLAN = 3;

const SCENARIO = `name: shard-proof
description: probes and paced load on two plans, for the sharding proof
plans: [pro, business]
probes: [auth, list, create-get, unknown-id]
load:
  mix: { listPets: 70, createPet: 20, getPet: 10 }
  # Room for slow answers on a busy machine: an open-model send beyond maxInFlight would be dropped, and the
  # comparison is about how the run is divided, not about how loaded the test machine is.
  maxInFlight: 400
  phases:
    - { executor: constant-rate, rate: 12/s, duration: 5s }
thresholds:
  - { expression: "count(429) == 0", severity: critical }
  - "count(5xx) == 0"
  - "p(99) < 10s"
`;

/** A relay on loopback in front of `upstream` that records, per client connection, the bearer keys it carried. */
async function countingRelay(
  upstream: string,
): Promise<{ url: string; perConnection: Map<Socket, Set<string>>; requests: () => number; close(): Promise<void> }> {
  const target = new URL(upstream);
  const perConnection = new Map<Socket, Set<string>>();
  let requests = 0;
  const server: Server = createServer((req: IncomingMessage, res) => {
    requests++;
    const auth = req.headers.authorization ?? '';
    const seen = perConnection.get(req.socket) ?? new Set<string>();
    if (auth.startsWith('Bearer ')) seen.add(auth.slice(7));
    perConnection.set(req.socket, seen);
    const out = request(
      { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers },
      (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
      },
    );
    out.on('error', () => res.destroy());
    req.pipe(out);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    perConnection,
    requests: () => requests,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

describe('a sharded run, merged, against one process', () => {
  const dir = scratch('petload-shards-');
  const entries = (['pro', 'business'] as const).flatMap((plan) =>
    Array.from({ length: KEYS_PER_PLAN }, (_, i) => ({
      key: `sk_${plan}_${i}_${randomBytes(10).toString('hex')}`,
      plan,
    })),
  );
  const keysFile = dir.keys(entries);
  const scenarioFile = dir.file('shard-proof.yaml', SCENARIO);
  const keys = parseKeys({ keys: entries }, 'test keys');
  let shared: ReferenceServer;
  let alone: ReferenceServer;
  let relay: Awaited<ReturnType<typeof countingRelay>>;
  let shards: Report[];
  let merged: Report;
  let single: Report;
  let startAt: string;

  beforeAll(async () => {
    [shared, alone] = await Promise.all([createReferenceServer({ keys }), createReferenceServer({ keys })]);
    relay = await countingRelay(shared.url);
    // Time for three processes to start on a busy machine; one that starts late begins at once (and says so).
    startAt = new Date(Date.now() + 10_000).toISOString();
    const common = ['--keys-file', keysFile, '--quiet'];
    const runs = Array.from({ length: SHARDS }, (_, i) =>
      runCli(
        [
          'run',
          scenarioFile,
          '--target',
          relay.url,
          '--shards',
          String(SHARDS),
          '--start-at',
          startAt,
          '--report-dir',
          join(dir.dir, `shard-${i}`),
          ...common,
        ],
        {
          env: { JOB_COMPLETION_INDEX: String(i) },
          killAfterMs: 80_000,
        },
      ),
    );
    const one = runCli(
      ['run', scenarioFile, '--target', alone.url, '--report-dir', join(dir.dir, 'single'), ...common],
      { killAfterMs: 80_000 },
    );
    const results = await Promise.all([...runs, one]);
    for (const r of results) expect(r.code, r.stderr).toBe(0);
    const m = await runCli([
      'merge',
      ...Array.from({ length: SHARDS }, (_, i) => join(dir.dir, `shard-${i}`, 'report.json')),
      '--out',
      join(dir.dir, 'merged'),
    ]);
    expect(m.code, m.stderr).toBe(0);
    shards = Array.from({ length: SHARDS }, (_, i) => readReportJson(join(dir.dir, `shard-${i}`)));
    merged = readReportJson(join(dir.dir, 'merged'));
    single = readReportJson(join(dir.dir, 'single'));
  }, 100_000);

  afterAll(async () => {
    await relay?.close();
    await Promise.all([shared?.close(), alone?.close()]);
    rmSync(dir.dir, { recursive: true, force: true });
  });

  it('each shard reports its index and the one run they share', () => {
    expect(shards.map((r) => r.shard?.index)).toEqual([0, 1, 2]);
    expect(new Set(shards.map((r) => r.shard?.runId)).size).toBe(1);
    expect(merged.shard).toEqual({ runId: shards[0]!.shard!.runId, count: SHARDS, startAt });
    // None began before --start-at.
    for (const r of shards) expect(Date.parse(r.startedAt)).toBeGreaterThanOrEqual(Date.parse(startAt));
  });

  it('gives the verdict and check outcomes of one process', () => {
    expect(single.verdict).toBe('pass');
    expect(merged.verdict).toBe(single.verdict);
    const statuses = (r: Report) => Object.fromEntries(r.checks.map((c) => [c.id, c.status]));
    expect(statuses(merged)).toEqual(statuses(single));
    expect(merged.thresholds.map((t) => [t.expression, t.ok])).toEqual(
      single.thresholds.map((t) => [t.expression, t.ok]),
    );
  });

  it('sends as many requests as one process, within 2 %, and the server saw every one of them', () => {
    // Nothing dropped and nothing held back: otherwise the counts would measure the test machine's load.
    expect([single.totals.dropped, merged.totals.dropped]).toEqual([0, 0]);
    expect(
      [single, ...shards].flatMap((r) => r.notes.filter((n) => /^load .* held back by backoff [1-9]/.test(n))),
    ).toEqual([]);
    expect(Math.abs(merged.totals.requests - single.totals.requests)).toBeLessThanOrEqual(
      0.02 * single.totals.requests,
    );
    expect(merged.totals.requests).toBe(shards.reduce((n, r) => n + r.totals.requests, 0));
    // Besides the reported ones, each shard sends one unauthenticated reachability request before its run.
    expect(relay.requests()).toBe(merged.totals.requests + SHARDS);
  });

  it("has the percentiles of the shards' histograms added up, to the histogram's precision", () => {
    expect(merged.operations.map((o) => o.operation)).toEqual(single.operations.map((o) => o.operation));
    for (const op of merged.operations) {
      const sum = createHistogram();
      for (const r of shards) {
        const mine = r.operations.find((o) => o.operation === op.operation);
        if (mine) addInto(sum, decodeHistogram(mine.histograms.all!));
      }
      expect(op.latency).toEqual(summarize(sum));
      const h = decodeHistogram(op.histograms.all!);
      for (const p of [50, 90, 95, 99, 99.9, 100]) expect(percentile(h, p)).toBe(percentile(sum, p));
      expect(op.count).toBe(
        shards.reduce((n, r) => n + (r.operations.find((o) => o.operation === op.operation)?.count ?? 0), 0),
      );
    }
  });

  it("never lets two shards use one key: disjoint key lists, and each connection to the server carried one shard's keys", () => {
    const lists = shards.map((r) => r.keys.map((k) => k.label));
    const all = lists.flat();
    expect(new Set(all).size).toBe(all.length);
    expect(all.sort()).toEqual(keys.map((k) => k.label).sort());
    for (const r of shards) {
      const own = new Set(r.keys.map((k) => k.label));
      for (const t of r.keyTimelines) expect(own.has(t.key)).toBe(true);
    }
    const shardOfSecret = new Map(keys.map((k) => [k.secret, lists.findIndex((l) => l.includes(k.label))]));
    const used = new Set<string>();
    for (const secrets of relay.perConnection.values()) {
      const owners = new Set([...secrets].filter((s) => shardOfSecret.has(s)).map((s) => shardOfSecret.get(s)));
      expect(owners.size).toBeLessThanOrEqual(1);
      for (const s of secrets) if (shardOfSecret.has(s)) used.add(s);
    }
    // Every key was used (each shard had traffic on each of its keys), by one shard only.
    expect(used.size).toBe(keys.length);
  });

  it('runs each probe once over all shards, as one process does', () => {
    const probeNotes = shards.map((r) =>
      r.notes.find((n) => /^shard \d of 3: probes /.test(n))!.replace(/^shard \d of 3: probes /, ''),
    );
    const units = probeNotes.flatMap((n) => (n.startsWith('none') ? [] : n.split(', ')));
    expect(units.sort()).toEqual(
      [
        'auth',
        'create-get [business]',
        'create-get [pro]',
        'list [business]',
        'list [pro]',
        'unknown-id [business]',
        'unknown-id [pro]',
      ].sort(),
    );
  });
});

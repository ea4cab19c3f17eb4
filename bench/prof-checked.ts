// temp profiling harness (not committed)
import { spawn } from 'node:child_process';
import { startNginxListServer } from './peers/nginx-server.js';
import { detectPinning } from './lib/processes.js';
import { newBenchSecret, KEY_ENV } from './lib/key.js';
const pin = detectPinning(true);
const server = await startNginxListServer(pin);
const secret = newBenchSecret();
const kind = process.argv[2] ?? 'concurrency';
const extra = process.argv.slice(3);
const job =
  kind === 'concurrency'
    ? { kind, url: server.url, workers: 10, seconds: Number(process.env.SECS ?? 5), warmupS: 1 }
    : { kind, url: server.url, connections: 10, seconds: Number(process.env.SECS ?? 5), warmupS: 1 };
const child = spawn(
  'taskset',
  ['-c', '0', process.execPath, ...extra, '--import', 'tsx', 'bench/load/petload.ts', JSON.stringify(job)],
  { env: { ...process.env, [KEY_ENV]: secret }, stdio: ['ignore', 'pipe', 'inherit'] },
);
let out = '';
child.stdout.on('data', (d) => (out += d));
await new Promise((r) => child.on('exit', r));
const line = out.split('\n').find((l) => l.startsWith('@bench-result '));
const r = JSON.parse(line!.slice(14));
console.log(
  JSON.stringify({
    rps: Math.round(r.requestsPerSecond),
    cpu: r.cpuMicrosPerRequest.toFixed(1),
    share: r.cpuShare.toFixed(2),
    gc: (100 * r.gcShare).toFixed(1),
    checks: r.checks,
  }),
);
await server.stop();

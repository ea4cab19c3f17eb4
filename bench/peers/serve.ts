/**
 * Child process entry: serves one peer (bench/peers/bare-server.ts) or the reference server with the bench key
 * on 127.0.0.1, writes its address for the parent, and answers recording commands over IPC. It exits when
 * the parent goes away (IPC disconnect), so no server outlives a bench.
 */
import { createReferenceServer } from '../../src/reference-server/index.js';
import { emitResult, type ServeSpec, type ServerCommand, type ServerReply } from '../lib/child-protocol.js';
import { keyFromEnv } from '../lib/key.js';
import { type ArrivalLog, startBareServer } from './bare-server.js';

const spec = JSON.parse(process.argv[2] ?? '') as ServeSpec;
let server: { url: string; log: ArrivalLog | null; close(): Promise<void> };
if (spec.kind === 'reference') {
  const s = await createReferenceServer({ host: '127.0.0.1', port: 0, keys: [keyFromEnv()], timeScale: 1 });
  server = { url: s.url, log: null, close: () => s.close() };
} else {
  server = await startBareServer(spec);
}

const reply = (r: ServerReply) => process.send?.(r);
let cpuFrom = process.cpuUsage();
process.on('message', (m: ServerCommand) => {
  if (m.cmd === 'record') {
    server.log?.start(m.capacity);
    cpuFrom = process.cpuUsage();
    reply({ cmd: 'record' });
  } else {
    const cpu = process.cpuUsage(cpuFrom);
    const arrivals = server.log?.collect() ?? { arrivals: [], holds: [], full: false };
    reply({ cmd: 'collect', recording: { ...arrivals, cpuMicros: cpu.user + cpu.system } });
  }
});
process.on('disconnect', () => {
  void server.close().then(() => process.exit(0));
});
emitResult({ url: server.url });

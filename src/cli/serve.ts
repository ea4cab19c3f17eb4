/**
 * `petload serve`: runs the reference Animal Store server until SIGINT or SIGTERM. The first line on stdout is
 * always `listening http://HOST:PORT/v1`; without a keys file, one line per generated key follows
 * (`key <plan> <key>`): they are local test keys, valid only on this server. The server, the keys file and the
 * plans file are imported when the command runs.
 */
import type { Argv } from 'yargs';
import { describeLimits, layerFigures, PUBLISHED_FIGURES } from '../api/plans.js';
import { FAULT_NAMES } from '../reference-server/faults.js';
import { WINDOW_REPORTS } from '../reference-server/limiter.js';
import { command } from './command.js';

export const serveCommand = command({
  command: 'serve',
  describe: 'Run the reference Animal Store server (a compliant target, or a faulty one with --fault)',
  builder: (y: Argv) =>
    y
      .option('host', { type: 'string', default: '127.0.0.1', describe: 'address to listen on' })
      .option('port', { type: 'number', default: 8080, describe: 'port to listen on (0: any free port)' })
      .option('keys-file', {
        type: 'string',
        describe: 'keys file (JSON); also PETLOAD_KEYS_FILE; default: one generated key per plan',
      })
      .option('plans-file', {
        type: 'string',
        describe: 'plans file (JSON or YAML): figures of whole plans, instead of the published ones (docs/plans.md)',
      })
      .option('time-scale', {
        type: 'number',
        default: 1,
        describe: 'run the server clock N times faster than real time',
      })
      .option('fault', {
        type: 'string',
        array: true,
        choices: FAULT_NAMES,
        describe: 'switch on a fault of the catalogue (repeatable)',
      })
      .option('window-report', {
        type: 'string',
        choices: WINDOW_REPORTS,
        default: 'tightest' as const,
        describe: 'which window the rate-limit headers describe',
      })
      .option('count-errors', {
        type: 'string',
        choices: ['yes', 'no'] as const,
        default: 'no' as const,
        describe: 'whether 400/404 answers consume quota',
      })
      .option('ban-threshold', {
        type: 'number',
        default: 10,
        describe: 'requests tolerated during a running Retry-After before a ban',
      })
      .option('ban-seconds', {
        type: 'number',
        default: 900,
        describe: 'length of a ban, in server-clock seconds',
      }),
  handler: async (args) => {
    const [{ loadKeysFile }, { loadPlansFile }, { createReferenceServer, generateKeys }] = await Promise.all([
      import('../config/keys-file.js'),
      import('../config/plan-figures.js'),
      import('../reference-server/index.js'),
    ]);
    const keysFile = args['keys-file'] ?? process.env.PETLOAD_KEYS_FILE;
    const plans = args['plans-file'] !== undefined ? loadPlansFile(args['plans-file']) : undefined;
    const server = await createReferenceServer({
      host: args.host,
      port: args.port,
      keys: keysFile ? loadKeysFile(keysFile, layerFigures(PUBLISHED_FIGURES, plans)) : generateKeys(plans),
      timeScale: args['time-scale'],
      faults: args.fault ?? [],
      windowReport: args['window-report'],
      countErrors: args['count-errors'] === 'yes',
      banThreshold: args['ban-threshold'],
      banSeconds: args['ban-seconds'],
    });
    process.stdout.write(`listening ${server.url}\n`);
    if (keysFile) {
      process.stderr.write(
        `${server.keys.length} key(s) from ${keysFile}: ${server.keys.map((k) => k.label).join(', ')}\n`,
      );
    } else {
      for (const k of server.keys) process.stdout.write(`key ${k.plan} ${k.secret}\n`);
      process.stderr.write(
        'note: the keys above are local test keys made for this server only; they are valid nowhere else\n',
      );
    }
    if (args['time-scale'] !== 1) {
      process.stderr.write(
        `time scale ${args['time-scale']}: a server minute lasts ${(60 / args['time-scale']).toFixed(2)} s\n`,
      );
    }
    if (args.fault?.length) process.stderr.write(`faults on: ${args.fault.join(', ')}\n`);
    if (plans !== undefined)
      process.stderr.write(`figures: ${server.keys.map((k) => `${k.label} ${describeLimits(k.limits)}`).join('; ')}\n`);
    await new Promise<void>((resolve) => {
      const stop = () => {
        process.off('SIGINT', stop);
        process.off('SIGTERM', stop);
        resolve();
      };
      process.on('SIGINT', stop);
      process.on('SIGTERM', stop);
    });
    await server.close();
  },
});

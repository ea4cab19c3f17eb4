/**
 * Child process entry of a client test (src/http/client.int.test.ts): sends one request through a client over the
 * transport and to the origin given in argv, prints its status, and never closes the client. The test times how long
 * the process takes to exit: an idle connection must not hold it. Never imported by src.
 */
import { createClock } from '../core/clock.js';
import { createHttpClient } from '../http/client.js';

const [origin, transport] = process.argv.slice(2) as [string, 'direct' | 'undici'];
const client = createHttpClient({ baseUrl: `${origin}/v1`, clock: createClock(1), transport });
const ex = await client.send({
  operation: 'listPets',
  method: 'GET',
  path: '/pets',
  auth: { kind: 'none' },
  tag: 'test',
});
process.stdout.write(`${ex.status}\n`);

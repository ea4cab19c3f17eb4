// temp: start nginx and print URL, keep running until killed
import { startNginxListServer } from './peers/nginx-server.js';
import { detectPinning } from './lib/processes.js';
const server = await startNginxListServer(detectPinning(true));
console.log(server.url);
process.on('SIGTERM', async () => {
  await server.stop();
  process.exit(0);
});
setInterval(() => {}, 1e6);

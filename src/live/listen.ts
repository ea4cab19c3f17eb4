/** The two live servers' shared plumbing: listen on a host and port (0: a free one), and close for good. */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Listen; resolves with the port bound, rejects with the listen error (a port in use: EADDRINUSE). */
export function listen(server: Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const failed = (e: Error) => reject(e);
    server.once('error', failed);
    server.listen(port, host, () => {
      server.off('error', failed);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

/** Stop accepting, drop every connection (kept-alive ones too), and resolve once the server is closed. */
export function closeServer(server: Server): Promise<void> {
  if (!server.listening) return Promise.resolve();
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

/** An http URL for a host and port (an IPv6 address in brackets). */
export function httpUrl(host: string, port: number, path: string): string {
  return `http://${host.includes(':') ? `[${host}]` : host}:${port}${path}`;
}

/**
 * Test-only: one raw HTTP exchange over a fresh TCP connection, for requests node's own client would refuse
 * to send (malformed request lines, odd header names, conflicting lengths). Never imported by src.
 */
import { connect } from 'node:net';

export interface RawResult {
  /** The status of the first response line, or null when the connection closed (or timed out) without one. */
  status: number | null;
  /** Everything read, as latin1 text. */
  text: string;
}

/**
 * Write `request`, half-close, and read until the server closes or the first response's head is in. Bounded:
 * gives up after `timeoutMs` (a server that waits for more of a body than was sent, as it may).
 */
export function rawExchange(port: number, request: Buffer | string, timeoutMs = 2000): Promise<RawResult> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let text = '';
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      const m = /^HTTP\/1\.[01] (\d{3})/.exec(text);
      resolve({ status: m ? Number(m[1]) : null, text });
    };
    const timer = setTimeout(finish, timeoutMs);
    socket.on('error', finish);
    socket.on('close', finish);
    socket.on('data', (d: Buffer) => {
      text += d.toString('latin1');
      if (text.includes('\r\n\r\n')) finish();
    });
    socket.on('connect', () => socket.end(request));
  });
}

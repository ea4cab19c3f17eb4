/**
 * `petload run --live`: a page to watch a run as it goes, served on loopback under an unguessable token
 * (http://127.0.0.1:PORT/<32 hex>/); any other path is refused (403). The page gets a snapshot of the run by
 * Server-Sent Events about once a second, and one at once when the run ends; it then links to report.html, which
 * this server serves under the same token path once the run has written it (its file path is shown as text too).
 * A sink of the run's event stream: it subscribes synchronously, so that calling it from RunOptions.subscribe misses
 * no event; a page opened, closed or stalled never affects the run.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { RunEvents } from '../core/run-events.js';
import { closeServer, httpUrl, listen } from './listen.js';
import { PAGE_CSP } from '../outputs/page-parts.js';
import { LIVE_CSP_HEADER, renderLivePage } from './page.js';
import { LiveState } from './state.js';

export interface LivePageOptions {
  /** The port to listen on (default: a free one). */
  port?: number;
  /** Loopback only. */
  host?: '127.0.0.1';
  /**
   * Where the page links to for the final report.html (an http or https address, e.g. where CI publishes
   * reports); null, absent or anything else: the report this server serves under the token path.
   */
  reportHref?: () => string | null;
  /** Real ms between two snapshots (default 1000). */
  intervalMs?: number;
}

export interface LivePage {
  /** The page's address, token included: the only address it answers on. */
  readonly url: string;
  /** Ends every open event stream and stops the server (the page keeps what it last showed). */
  close(): Promise<void>;
}

const COMMON_HEADERS = {
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
};

function send(res: ServerResponse, status: number, type: string, body: string, extra: Record<string, string> = {}) {
  res.writeHead(status, { ...COMMON_HEADERS, 'content-type': type, ...extra });
  res.end(body);
}

/** The path after `/<token>` when the request carries the token ('' for `/<token>` itself), else null. */
function afterToken(url: string, token: string): string | null {
  const path = url.split('?')[0] ?? '';
  const given = Buffer.from(path.slice(1, 1 + token.length));
  const rest = path.slice(1 + token.length);
  if (!path.startsWith('/') || given.length !== token.length || (rest !== '' && !rest.startsWith('/'))) return null;
  return timingSafeEqual(given, Buffer.from(token)) ? rest : null;
}

const httpAddress = (href: string | null | undefined): string | null =>
  typeof href === 'string' && /^https?:\/\/[^\s]+$/i.test(href) ? href : null;

export async function startLivePage(events: RunEvents, options: LivePageOptions = {}): Promise<LivePage> {
  // Subscribed before the first await: every event from now on reaches the page's state.
  const state = new LiveState({
    reportHref: (file) => httpAddress(options.reportHref?.()) ?? (file === null ? null : 'report.html'),
  });
  const offState = state.subscribe(events);
  const token = randomBytes(16).toString('hex');
  const clients = new Set<ServerResponse>();
  const broadcast = () => {
    if (clients.size === 0) return;
    const data = `data: ${JSON.stringify(state.snapshot())}\n\n`;
    // A page that does not keep up misses snapshots (each one is whole) rather than making the server buffer them.
    for (const c of clients) if (!c.writableNeedDrain) c.write(data);
  };
  const offEnded = events.on('ended', broadcast);
  const timer = setInterval(broadcast, options.intervalMs ?? 1000);
  timer.unref();
  const page = renderLivePage();

  const stream = (req: IncomingMessage, res: ServerResponse) => {
    res.writeHead(200, {
      ...COMMON_HEADERS,
      'content-type': 'text/event-stream; charset=utf-8',
      connection: 'keep-alive',
    });
    res.write(`retry: 2000\n\ndata: ${JSON.stringify(state.snapshot())}\n\n`);
    clients.add(res);
    req.on('close', () => clients.delete(res));
  };
  const report = async (res: ServerResponse) => {
    const file = state.reportFile();
    if (file === null) return send(res, 404, 'text/plain; charset=utf-8', 'report.html is written when the run ends\n');
    const html = await readFile(file, 'utf8').catch(() => null);
    if (html === null) return send(res, 404, 'text/plain; charset=utf-8', 'report.html is no longer there\n');
    send(res, 200, 'text/html; charset=utf-8', html, { 'content-security-policy': PAGE_CSP });
  };
  const server = createServer((req, res) => {
    const rest = afterToken(req.url ?? '/', token);
    if (rest === null)
      return send(res, 403, 'text/plain; charset=utf-8', 'forbidden: use the address petload printed\n');
    if (req.method !== 'GET' && req.method !== 'HEAD') return send(res, 405, 'text/plain; charset=utf-8', 'GET only\n');
    if (rest === '') return send(res, 308, 'text/plain; charset=utf-8', '', { location: `/${token}/` });
    if (rest === '/')
      return send(res, 200, 'text/html; charset=utf-8', page, { 'content-security-policy': LIVE_CSP_HEADER });
    if (rest === '/events' && req.method === 'GET') return stream(req, res);
    if (rest === '/report.html') return void report(res);
    send(res, 404, 'text/plain; charset=utf-8', 'not found\n');
  });

  const stop = () => {
    clearInterval(timer);
    offState();
    offEnded();
  };
  let port: number;
  try {
    port = await listen(server, options.port ?? 0, options.host ?? '127.0.0.1');
  } catch (e) {
    stop();
    throw e;
  }
  let closing: Promise<void> | null = null;
  return {
    url: httpUrl(options.host ?? '127.0.0.1', port, `/${token}/`),
    close: () => {
      closing ??= (async () => {
        stop();
        for (const c of clients) c.end();
        clients.clear();
        await closeServer(server);
      })();
      return closing;
    },
  };
}

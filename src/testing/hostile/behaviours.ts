/**
 * Test-only: the misbehaviours of the hostile targets (server.ts), one per kind of broken server. Each
 * misbehaves only on API requests (paths under /v1/pets) and only on some of them, so that the run gets going
 * (the reachability request to /v1/ is answered honestly) and the defect shows up mid-run. Never imported by src.
 */
import type { Behaviour, Reply } from './server.js';
import { writeAnswer, writeHead } from './server.js';

const isApi = (r: Reply) => r.req.target.startsWith('/v1/pets');

/** Misbehave on every `n`th API request (by arrival order), answer honestly otherwise. */
function every(n: number, bad: Behaviour): Behaviour {
  let api = 0;
  return async (r) => {
    if (isApi(r) && ++api % n === 0) return bad(r);
    writeAnswer(r.socket, await r.honest());
  };
}

export const honest: Behaviour = async (r) => writeAnswer(r.socket, await r.honest());

/** TCP RST instead of an answer. */
export const resetEvery = (n: number): Behaviour =>
  every(n, async (r) => {
    r.socket.resetAndDestroy();
  });

/** Read the request and never answer (the connection stays open). */
export const hangEvery = (n: number): Behaviour => every(n, async () => undefined);

/** A Content-Length of the whole body, half of it, then the connection closes. */
export const truncateEvery = (n: number): Behaviour =>
  every(n, async (r) => {
    const a = await r.honest();
    const body = a.body.length > 1 ? a.body : Buffer.from('{"code":"truncated","message":"cut","status":200}');
    writeHead(r.socket, a, { length: body.length });
    r.socket.end(body.subarray(0, Math.floor(body.length / 2)));
  });

/** A 200 application/json answer whose body is an HTML error page. */
export const notJsonEvery = (n: number): Behaviour =>
  every(n, async (r) => {
    const a = await r.honest();
    writeAnswer(r.socket, { ...a, body: Buffer.from('<html><body><h1>502 Bad Gateway</h1></body></html>') });
  });

const HUGE_BYTES = 50 * 1024 * 1024;

/** What became of the huge bodies: written whole, or cut off because the client stopped reading. */
export interface HugeBodies {
  whole: number;
  cut: number;
}

/** A 50 MB JSON body (declared by Content-Length), written with backpressure until the client stops reading. */
export const hugeEvery = (n: number, bodies: HugeBodies): Behaviour =>
  every(n, async (r) => {
    const a = await r.honest();
    const socket = r.socket;
    writeHead(socket, a, { length: HUGE_BYTES });
    socket.write('[');
    const chunk = Buffer.from('{"id":1,"name":"x","categoryId":1},'.repeat(2000));
    let written = 1;
    await new Promise<void>((resolve) => {
      const pump = () => {
        while (!socket.destroyed && written + chunk.length < HUGE_BYTES) {
          written += chunk.length;
          if (!socket.write(chunk)) return void socket.once('drain', pump);
        }
        if (socket.destroyed) return;
        socket.write(Buffer.alloc(HUGE_BYTES - written, 0x20));
        bodies.whole++;
        resolve();
      };
      socket.once('close', () => {
        if (written + chunk.length < HUGE_BYTES) bodies.cut++;
        resolve();
      });
      pump();
    });
  });

/** The rate-limit headers twice each (with different values), on every API answer. */
export const repeatedHeaders: Behaviour = async (r) => {
  const a = await r.honest();
  if (!isApi(r)) return writeAnswer(r.socket, a);
  const extra = a.headers
    .filter(([k]) => k.toLowerCase().startsWith('x-ratelimit-'))
    .map(([k, v]): [string, string] => [k, `${v}0`]);
  writeAnswer(r.socket, { ...a, headers: [...a.headers, ...extra] });
};

/**
 * Absurdly long headers: every `n`th API answer carries a 1 MB header (beyond any client's header limit), and
 * every other one an 8 KB X-RateLimit-Reset (within the limit, for the header parsers to chew on).
 */
export const longHeadersEvery = (n: number): Behaviour => {
  let api = 0;
  return async (r) => {
    const a = await r.honest();
    if (!isApi(r)) return writeAnswer(r.socket, a);
    const huge = ++api % n === 0;
    const headers: [string, string][] = huge
      ? [...a.headers, ['X-Padding', 'p'.repeat(1024 * 1024)]]
      : a.headers.map(([k, v]): [string, string] =>
          k.toLowerCase() === 'x-ratelimit-reset' ? [k, '9'.repeat(8192)] : [k, v],
        );
    writeAnswer(r.socket, { ...a, headers });
  };
};

/** HTTP/1.0: no Content-Length, the body ends when the connection closes. */
export const http10: Behaviour = async (r) => {
  const a = await r.honest();
  writeAnswer(r.socket, a, { version: '1.0', length: null });
};

/** HTTP/1.1 with `Connection: close`: a new connection for every request. */
export const closeAfterEach: Behaviour = async (r) => writeAnswer(r.socket, await r.honest(), { close: true });

/**
 * A target that echoes the credential it was sent: in a header of every answer, and in every error body, whose
 * wrong `status` makes it evidence (contract.error-shape); the key sits across the 300th character, where the
 * evidence excerpt cuts the body.
 */
export const echoCredential: Behaviour = async (r) => {
  const a = await r.honest();
  const auth = r.req.headers.get('authorization') ?? '';
  const headers: [string, string][] = [...a.headers, ['X-Echo-Authorization', auth]];
  if (!isApi(r) || a.status < 400) return writeAnswer(r.socket, { ...a, headers });
  // {"code":"echo","message":" is 26 characters, " you sent Bearer " 17 more: the key starts at 277, and the
  // 300-character excerpt of the evidence (`…` included) cuts it after 22 of its 28 characters (a piece the
  // redactor must hide).
  const message = `${'x'.repeat(234)} you sent ${auth}`;
  writeAnswer(r.socket, { ...a, headers, body: Buffer.from(JSON.stringify({ code: 'echo', message, status: 0 })) });
};

/** How a server's JSON encoder writes the key: PHP's json_encode escapes `/`, .NET's System.Text.Json `+`. */
export type JsonEscaping = 'php' | 'dotnet';

export function jsonEscaped(text: string, how: JsonEscaping): string {
  return how === 'php' ? text.replaceAll('/', '\\/') : text.replaceAll('+', '\\u002B').replaceAll('/', '\\u002F');
}

/**
 * A target that echoes the credential JSON-escaped, as PHP and .NET write it: in a header of every answer and in
 * every error body (its wrong `status` makes it evidence, contract.error-shape). The first error bodies hold the
 * key whole; every third one has it across the 300th character (25 of its characters before it), where the evidence excerpt cuts the body.
 */
export const echoCredentialEscaped = (): Behaviour => {
  let errors = 0;
  return async (r) => {
    const a = await r.honest();
    const auth = r.req.headers.get('authorization') ?? '';
    const how: JsonEscaping = r.req.seq % 2 === 0 ? 'php' : 'dotnet';
    const headers: [string, string][] = [...a.headers, ['X-Echo-Authorization', jsonEscaped(auth, 'dotnet')]];
    if (!isApi(r) || a.status < 400) return writeAnswer(r.socket, { ...a, headers });
    // 26 + 231 + 17 characters before the key: the 299 the excerpt keeps end 25 characters into the key.
    const pad = ++errors % 3 === 0 ? 'x'.repeat(231) : '';
    // Written as the encoder writes it: JSON text whose strings carry the escapes.
    const body = `{"code":"echo","message":"${pad} you sent ${jsonEscaped(auth, how)}","status":0}`;
    writeAnswer(r.socket, { ...a, headers, body: Buffer.from(body) });
  };
};

const hex2 = (c: string) => c.charCodeAt(0).toString(16).padStart(2, '0');
const base64 = (t: string) => Buffer.from(t).toString('base64');

/**
 * The forms a server may echo a key in, by name: percent-encoded (as a URL or a query writes it, in either case of
 * hex, every character or only some), as HTML character references (hex, decimal, named), JSON-escaped, in base64
 * (alone, and as a Basic credential `user:key`, `:key`, `key:`).
 */
export function encodedForms(key: string): Record<string, string> {
  return {
    'percent-upper': encodeURIComponent(key),
    'percent-lower': [...key].map((c) => `%${hex2(c)}`).join(''),
    'percent-partial': key.replace(/[/+&]/g, (c) => `%${hex2(c).toUpperCase()}`),
    'html-hex': [...key].map((c) => `&#x${hex2(c)};`).join(''),
    'html-decimal': [...key].map((c) => `&#${c.charCodeAt(0)};`).join(''),
    'html-named': key.replaceAll('&', '&amp;').replaceAll('/', '&sol;'),
    json: [...key].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0').toUpperCase()}`).join(''),
    base64: base64(key),
    'basic-user': base64(`user:${key}`),
    'basic-no-user': base64(`:${key}`),
    'basic-key-colon': base64(`${key}:`),
  };
}

/** The forms of encodedForms by error body: five bodies (the evidence a check keeps), each short enough to be whole. */
export const ENCODED_GROUPS = [
  ['percent-upper', 'percent-lower', 'percent-partial', 'html-named'],
  ['html-hex'],
  ['html-decimal'],
  ['json'],
  ['base64', 'basic-user', 'basic-no-user', 'basic-key-colon'],
] as const;

/**
 * A target that echoes the key of the credential in every encoded form: each in a header of every answer, and in
 * the error bodies (their wrong `status` makes them evidence, contract.error-shape), a group of forms each, by turns.
 * For a key of 26 characters, every body is shorter than the evidence's excerpt.
 */
export const echoCredentialEncoded = (): Behaviour => {
  let errors = 0;
  return async (r) => {
    const a = await r.honest();
    const key = (r.req.headers.get('authorization') ?? '').replace(/^Bearer /, '');
    const forms = encodedForms(key);
    const echoes = Object.entries(forms).map(([n, f]): [string, string] => [`X-Echo-${n}`, f]);
    const headers: [string, string][] = [...a.headers, ...echoes];
    if (!isApi(r) || a.status < 400) return writeAnswer(r.socket, { ...a, headers });
    const group = ENCODED_GROUPS[errors++ % ENCODED_GROUPS.length]!;
    // Written as it is: the JSON encoder's escapes are the `json` form's own.
    const message = group.map((name) => `${name}: ${forms[name]}`).join(' ');
    const body = `{"code":"echo","message":"${message}","status":0}`;
    writeAnswer(r.socket, { ...a, headers, body: Buffer.from(body) });
  };
};

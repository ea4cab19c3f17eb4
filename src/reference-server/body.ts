/** Request bodies of the reference server: read with a size cap, parsed without losing int64 precision. */
import type { IncomingMessage } from 'node:http';
import { parse } from 'lossless-json';
import { NewPet } from '../api/schemas.js';

export const MAX_BODY_BYTES = 64 * 1024;

export type BodyOutcome = { kind: 'ok'; text: string } | { kind: 'too-large' } | { kind: 'aborted' };

/** Reads the whole body, or stops as soon as it exceeds MAX_BODY_BYTES (the connection must then be closed). */
export function readBody(req: IncomingMessage): Promise<BodyOutcome> {
  const declared = Number(req.headers['content-length']);
  if (declared > MAX_BODY_BYTES) return Promise.resolve({ kind: 'too-large' });
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const settle = (outcome: BodyOutcome) => {
      if (settled) return;
      settled = true;
      req.removeListener('data', onChunk);
      resolve(outcome);
    };
    const onChunk = (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) settle({ kind: 'too-large' });
      else chunks.push(chunk);
    };
    req.on('data', onChunk);
    req.on('end', () => settle({ kind: 'ok', text: Buffer.concat(chunks, size).toString('utf8') }));
    req.on('error', () => settle({ kind: 'aborted' }));
    req.on('close', () => settle({ kind: 'aborted' }));
  });
}

/** Integer literals beyond 2^53 become bigints (so int64 values stay exact and larger ones can be refused). */
function parseNumber(literal: string): number | bigint {
  if (/^-?\d+$/.test(literal)) {
    const n = Number(literal);
    return Number.isSafeInteger(n) ? n : BigInt(literal);
  }
  return Number(literal);
}

export type JsonOutcome = { ok: true; value: unknown } | { ok: false; message: string };

export function parseJson(text: string): JsonOutcome {
  try {
    return { ok: true, value: parse(text, null, parseNumber) };
  } catch (e) {
    return { ok: false, message: `malformed JSON: ${(e as Error).message}` };
  }
}

export type NewPetOutcome = { ok: true; pet: NewPet } | { ok: false; message: string };

/** Validates a body as NewPet, naming the first offending field. */
export function parseNewPet(text: string): NewPetOutcome {
  if (text.trim() === '') return { ok: false, message: 'the body is required: a NewPet object' };
  const json = parseJson(text);
  if (!json.ok) return json;
  const res = NewPet.safeParse(json.value);
  if (res.success) return { ok: true, pet: res.data };
  const issue = res.error.issues[0];
  const where = issue === undefined || issue.path.length === 0 ? 'body' : issue.path.join('.');
  return { ok: false, message: `invalid NewPet: ${where}: ${issue?.message ?? 'invalid'}` };
}

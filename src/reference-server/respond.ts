/** Pieces of the reference server's responses that do not depend on a request. */
import { GET_PET_SUNSET } from '../api/operations.js';

/** `Date` on the server clock (node's automatic Date would use the real clock), formatted once per second. */
export class HttpDate {
  private second = NaN;
  private text = '';

  at(nowMs: number): string {
    const s = Math.floor(nowMs / 1000);
    if (s !== this.second) {
      this.second = s;
      this.text = new Date(s * 1000).toUTCString();
    }
    return this.text;
  }
}

/** An Error body (spec: "Errors"). `withStatus` false is the `error-shape` fault. */
export function errorJson(status: number, code: string, message: string, withStatus: boolean): string {
  return JSON.stringify(withStatus ? { code, message, status } : { code, message });
}

/** RFC 9745 Deprecation: the endpoint has been deprecated since 1 January 2025 (a structured-field date). */
const DEPRECATED_SINCE_S = Date.UTC(2025, 0, 1) / 1000;

/** Headers of every answer of the deprecated GET /pets/{petId}: Deprecation, Sunset (RFC 8594) and its successor. */
export const DEPRECATION_HEADERS: readonly string[] = [
  'Deprecation',
  `@${DEPRECATED_SINCE_S}`,
  'Sunset',
  GET_PET_SUNSET.toUTCString(),
  'Link',
  '</v1/pets>; rel="successor-version"',
];

export const WWW_AUTHENTICATE = 'WWW-Authenticate';
export const CHALLENGE_MISSING = 'Bearer realm="animal-store"';
export const CHALLENGE_INVALID = 'Bearer realm="animal-store", error="invalid_token"';

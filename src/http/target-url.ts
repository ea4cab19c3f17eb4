/**
 * The one validator of a target's base URL: the CLI, a run and the HTTP client all call it, so that one URL gets
 * one error code and one message wherever it is given.
 */
import { PetloadError } from '../core/errors.js';

/**
 * A --target value as a base URL: http or https, no credentials (keys go in the keys file), no query or fragment.
 * Messages never echo a value that may carry credentials.
 */
export function parseTargetUrl(raw: string): URL {
  const shown = raw.includes('@')
    ? 'a value with an @ in it (not shown: it may carry credentials)'
    : JSON.stringify(raw);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    const fix = /^(localhost|[\w-]+(\.[\w-]+)+)(:\d+)?(\/|$)/.test(raw) ? ` (did you mean "http://${raw}"?)` : '';
    throw new PetloadError(
      'E_USAGE',
      `--target: expected a base URL such as https://staging.example.com/v1, found ${shown}${fix}`,
    );
  }
  if (url.username !== '' || url.password !== '') {
    throw new PetloadError(
      'E_KEYS_ON_ARGV',
      '--target: expected a URL without credentials, found one with a user or password in it; keys go in the keys file',
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    const fix = /^(localhost|[\w-]+(\.[\w-]+)+):\d+/.test(raw) ? ` (did you mean "http://${raw}"?)` : '';
    throw new PetloadError('E_USAGE', `--target: expected an http: or https: URL, found ${shown}${fix}`);
  }
  if (url.search !== '' || url.hash !== '') {
    throw new PetloadError('E_USAGE', `--target: expected a base URL without a query or fragment, found ${shown}`);
  }
  return url;
}

/** True for loopback addresses (127.0.0.0/8, ::1, localhost). */
export function isLoopback(url: string): boolean {
  const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
  return host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

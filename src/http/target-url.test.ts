import { describe, expect, it } from 'vitest';
import { PetloadError } from '../core/errors.js';
import { isLoopback, parseTargetUrl } from './target-url.js';

describe('parseTargetUrl', () => {
  it('takes an http or https base URL', () => {
    expect(parseTargetUrl('https://staging.example.com/v1').href).toBe('https://staging.example.com/v1');
    expect(parseTargetUrl('http://127.0.0.1:8080/v1/').pathname).toBe('/v1/');
  });

  it.each([
    ['notaurl', 'E_USAGE', '--target: expected a base URL such as https://staging.example.com/v1, found "notaurl"'],
    [
      'staging.example.com/v1',
      'E_USAGE',
      'found "staging.example.com/v1" (did you mean "http://staging.example.com/v1"?)',
    ],
    [
      'localhost:8080/v1',
      'E_USAGE',
      '--target: expected an http: or https: URL, found "localhost:8080/v1" (did you mean "http://localhost:8080/v1"?)',
    ],
    ['ftp://example.com/v1', 'E_USAGE', '--target: expected an http: or https: URL, found "ftp://example.com/v1"'],
    ['https://example.com/v1?key=1', 'E_USAGE', '--target: expected a base URL without a query or fragment'],
    ['https://user:s3cret@example.com/v1', 'E_KEYS_ON_ARGV', '--target: expected a URL without credentials'],
    ['http//user:s3cret@example.com', 'E_USAGE', 'found a value with an @ in it (not shown: it may carry credentials)'],
  ])('refuses %j', (raw, code, message) => {
    try {
      parseTargetUrl(raw);
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(PetloadError);
      expect((e as PetloadError).code).toBe(code);
      expect((e as Error).message).toContain(message);
      expect((e as Error).message).not.toContain('s3cret');
    }
  });
});

describe('isLoopback', () => {
  it.each([
    ['http://127.0.0.1:1/v1', true],
    ['http://127.5.6.7/v1', true],
    ['http://localhost:8080/v1', true],
    ['http://[::1]:8080/v1', true],
    ['https://staging.example.com/v1', false],
    ['http://10.0.0.1/v1', false],
  ])('%s: %s', (url, loopback) => expect(isLoopback(url)).toBe(loopback));
});

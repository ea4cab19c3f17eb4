import { describe, expect, it } from 'vitest';
import { PetloadError } from '../core/errors.js';
import { parseScenarioText } from './load-scenario.js';
import { parseHeaderFlag, parseHeaderSecretFlag, resolveHeaders } from './headers.js';

function usageError(f: () => unknown): string {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(PetloadError);
    expect((e as PetloadError).code).toBe('E_USAGE');
    return (e as PetloadError).message;
  }
  throw new Error('accepted');
}

describe('--header and --header-secret', () => {
  it('parses Name: value, trimmed, with a lower-case name', () => {
    expect(parseHeaderFlag('X-Tenant:  acme corp ')).toEqual({ name: 'x-tenant', value: 'acme corp', secret: false });
    expect(parseHeaderFlag('User-Agent: ci/1')).toEqual({ name: 'user-agent', value: 'ci/1', secret: false });
  });

  it("refuses Authorization (petload's own) and the client's headers, with the reason", () => {
    expect(usageError(() => parseHeaderFlag('Authorization: Bearer x'))).toMatch(
      /^--header: Authorization cannot be set: Authorization is petload's own: it sends each key of the keys file/,
    );
    expect(usageError(() => parseHeaderFlag('proxy-authorization: x'))).toMatch(/go in its URL/);
    expect(usageError(() => parseHeaderFlag('Host: x'))).toMatch(/Host cannot be set/);
    expect(usageError(() => parseHeaderFlag('no colon'))).toMatch(/expected 'Name: value'/);
    expect(usageError(() => parseHeaderFlag('Bad Name: x'))).toMatch(/expected a header name/);
  });

  it('reads --header-secret from the environment, and names an unset variable without its value', () => {
    expect(parseHeaderSecretFlag('X-Gateway-Token=TOKEN', { TOKEN: 's3cr3t-value' })).toEqual({
      name: 'x-gateway-token',
      value: 's3cr3t-value',
      secret: true,
    });
    expect(usageError(() => parseHeaderSecretFlag('X-Gateway-Token=TOKEN', {}))).toBe(
      "--header-secret X-Gateway-Token: the environment variable TOKEN is not set (it holds the header's value)",
    );
    expect(usageError(() => parseHeaderSecretFlag('X-Gateway-Token: TOKEN', {}))).toMatch(/expected Name=VARIABLE/);
    expect(usageError(() => parseHeaderSecretFlag('Authorization=TOKEN', { TOKEN: 'x' }))).toMatch(
      /Authorization cannot be set/,
    );
    expect(usageError(() => parseHeaderSecretFlag('X-A=TOKEN', { TOKEN: 'a\r\nX-Evil: 1' }))).toMatch(/line break/);
    expect(usageError(() => parseHeaderSecretFlag('X-A=TOKEN', { TOKEN: 'short' }))).toBe(
      '--header-secret X-A: TOKEN: expected a secret of at least 8 characters, found a shorter one',
    );
  });
});

describe("a scenario's headers", () => {
  const scenario = (headers: string) =>
    parseScenarioText(`name: h\ndescription: d\nprobes: [auth]\nheaders:\n${headers}`, 'h.yaml', {
      env: { TENANT: 'acme', TOKEN: 'tok-123456789' },
    });

  it('takes values, ${VAR} values and secretEnv secrets; a flag wins over the scenario for the same name', () => {
    const s = scenario('  X-Tenant: "${TENANT}"\n  X-Trace: on\n  X-Gateway-Token: { secretEnv: TOKEN }\n');
    const headers = resolveHeaders(s.headers, [parseHeaderFlag('x-trace: off')], { TOKEN: 'tok-123456789' }, 'h.yaml');
    expect(headers).toEqual([
      { name: 'x-tenant', value: 'acme', secret: false },
      { name: 'x-trace', value: 'off', secret: false },
      { name: 'x-gateway-token', value: 'tok-123456789', secret: true },
    ]);
    expect(usageError(() => resolveHeaders(s.headers, [], {}, 'h.yaml'))).toBe(
      "h.yaml: headers.X-Gateway-Token: the environment variable TOKEN is not set (it holds the header's value)",
    );
  });

  it('refuses Authorization, a bad name, a header twice and a value on two lines, located', () => {
    expect(() => scenario('  Authorization: x\n')).toThrow(
      /h\.yaml:5:18 headers\.Authorization: Authorization cannot be set/,
    );
    expect(() => scenario('  X-A: a\n  x-a: b\n')).toThrow(/expected each header once, found X-A again/);
    expect(() => scenario('  X-A: { secretEnv: 1x }\n')).toThrow(/expected the name of an environment variable/);
    expect(() => scenario('  X-A: "a\\nb"\n')).toThrow(/line break/);
  });
});

import { describe, expect, it } from 'vitest';
import { isTickwheelError, type TickwheelError } from '../src/errors.js';
import { executorAddressProblem, MAX_EXECUTOR_ADDRESS_LENGTH } from '../src/executor-address.js';
import { MAX_REGISTRY_GROUP_LENGTH, MAX_REGISTRY_KEY_LENGTH, parseRegistryParam } from '../src/messages.js';

const XXL_JOB_REGISTRATION = {
  registryGroup: 'EXECUTOR',
  registryKey: 'xxl-job-executor-sample',
  registryValue: 'http://192.168.1.20:9999/',
};

function refusal(body: Record<string, unknown>): TickwheelError {
  try {
    parseRegistryParam(body);
  } catch (err) {
    if (isTickwheelError(err, 'TW_ERR_INVALID_FIELD')) return err;
    throw err;
  }
  throw new Error(`expected ${JSON.stringify(body)} to be refused`);
}

/** An address of exactly `length` characters. */
function addressOf(length: number): string {
  const head = 'http://10.0.0.5:9999/';
  return head + 'p'.repeat(length - head.length);
}

describe('registry values', () => {
  it("takes XXL-JOB executors' registrations, with or without the trailing slash", () => {
    expect(parseRegistryParam(XXL_JOB_REGISTRATION)).toEqual(XXL_JOB_REGISTRATION);
    const withoutSlash = { ...XXL_JOB_REGISTRATION, registryValue: 'http://192.168.1.20:9999' };
    expect(parseRegistryParam(withoutSlash)).toEqual(withoutSlash);
  });

  it('takes https, host names, IPv6 literals, context paths and non-ASCII app names, stored as sent', () => {
    for (const registryValue of [
      'https://orders-7f9c.internal:8443/',
      'http://[fd00::5]:9999/',
      'HTTP://Executor.Example:9999/xxl-job-executor/',
      'http://10.0.0.5:9999/a%20b/',
    ]) {
      expect(parseRegistryParam({ ...XXL_JOB_REGISTRATION, registryValue }).registryValue).toBe(
        registryValue,
      );
    }
    expect(parseRegistryParam({ ...XXL_JOB_REGISTRATION, registryKey: '订单-executor' }).registryKey).toBe(
      '订单-executor',
    );
    expect(
      parseRegistryParam({ ...XXL_JOB_REGISTRATION, registryValue: ' http://h:1/ ' }).registryValue,
    ).toBe('http://h:1/');
  });

  it('refuses an executor address that is not an http(s) URL, naming registryValue', () => {
    for (const registryValue of [
      'file:///etc/passwd',
      'javascript:alert(1)',
      'data:text/plain,x',
      'ftp://10.0.0.5/',
      'gopher://10.0.0.5:70/',
      'http:10.0.0.5:9999',
      'http:/10.0.0.5:9999/',
      '10.0.0.5:9999',
      'not a url',
    ]) {
      const err = refusal({ ...XXL_JOB_REGISTRATION, registryValue });
      expect(err.field, registryValue).toBe('registryValue');
    }
  });

  it('refuses an executor address without a host', () => {
    for (const registryValue of ['http://', 'http://:9999/', 'http:///10.0.0.5:9999/', 'https:///']) {
      expect(refusal({ ...XXL_JOB_REGISTRATION, registryValue }).field, registryValue).toBe('registryValue');
    }
  });

  it('refuses an executor address carrying credentials', () => {
    for (const registryValue of [
      'http://user:secret@10.0.0.5:9999/',
      'http://user@10.0.0.5:9999/',
      'http://:secret@10.0.0.5:9999/',
      'http://@10.0.0.5:9999/',
    ]) {
      const err = refusal({ ...XXL_JOB_REGISTRATION, registryValue });
      expect(err.message, registryValue).toBe('registryValue: must not carry credentials (user:password@)');
    }
  });

  it('refuses a query, a fragment, a comma, whitespace or a backslash in an executor address', () => {
    for (const registryValue of [
      'http://10.0.0.5:9999/?x=1',
      'http://10.0.0.5:9999/#x',
      // A comma would split into two addresses in a stored address list.
      'http://10.0.0.5:9999/,http://10.0.0.6:9999/',
      'http://10.0.0.5:9999/a b',
      'http://10.0.0.5:9999/a\tb/',
      // WHATWG reads `\` as `/`: this would call evil.example.
      'http://evil.example\\x.example/',
    ]) {
      expect(refusal({ ...XXL_JOB_REGISTRATION, registryValue }).field, registryValue).toBe('registryValue');
    }
  });

  it(`bounds an executor address to ${MAX_EXECUTOR_ADDRESS_LENGTH} characters (the registry column)`, () => {
    const longest = addressOf(MAX_EXECUTOR_ADDRESS_LENGTH);
    expect(parseRegistryParam({ ...XXL_JOB_REGISTRATION, registryValue: longest }).registryValue).toBe(
      longest,
    );
    expect(
      refusal({ ...XXL_JOB_REGISTRATION, registryValue: addressOf(MAX_EXECUTOR_ADDRESS_LENGTH + 1) }).message,
    ).toBe(`registryValue: must be at most ${MAX_EXECUTOR_ADDRESS_LENGTH} characters`);
  });

  it(`bounds the app name to ${MAX_REGISTRY_KEY_LENGTH} characters without whitespace, control or invisible characters`, () => {
    const longest = 'a'.repeat(MAX_REGISTRY_KEY_LENGTH);
    expect(parseRegistryParam({ ...XXL_JOB_REGISTRATION, registryKey: longest }).registryKey).toBe(longest);
    for (const registryKey of [
      'a'.repeat(MAX_REGISTRY_KEY_LENGTH + 1),
      'orders app',
      'orders\u0000',
      'orders\u001b[31m',
      'orders\u007f',
      'orders\u0085',
      // Right-to-left override and zero-width space: the name would not read as what it is.
      'orders\u202e',
      'ord\u200bers',
      'ord\u2028ers',
      'orders\ud800',
    ]) {
      expect(refusal({ ...XXL_JOB_REGISTRATION, registryKey }).field, JSON.stringify(registryKey)).toBe(
        'registryKey',
      );
    }
  });

  it(`bounds the registry group to ${MAX_REGISTRY_GROUP_LENGTH} letters, digits, _ and -`, () => {
    const longest = 'G'.repeat(MAX_REGISTRY_GROUP_LENGTH);
    expect(parseRegistryParam({ ...XXL_JOB_REGISTRATION, registryGroup: longest }).registryGroup).toBe(
      longest,
    );
    for (const registryGroup of [
      'G'.repeat(MAX_REGISTRY_GROUP_LENGTH + 1),
      'EXEC UTOR',
      'EXEC\nUTOR',
      '<b>',
    ]) {
      expect(refusal({ ...XXL_JOB_REGISTRATION, registryGroup }).field, registryGroup).toBe('registryGroup');
    }
  });

  it('gives the reason an address is refused, for the REST API to show after the address', () => {
    expect(executorAddressProblem('http://10.0.0.5:9999/')).toBeUndefined();
    expect(executorAddressProblem('not-a-url')).toBe('is not a URL (e.g. http://10.0.0.5:9999/)');
    expect(executorAddressProblem('file:///etc/passwd')).toBe(
      'must be an http or https URL (e.g. http://10.0.0.5:9999/)',
    );
    expect(executorAddressProblem('http://10.0.0.5:9999/?a')).toBe(
      'must be a base URL, without query or fragment',
    );
  });
});

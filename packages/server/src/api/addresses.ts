/**
 * Executor addresses as users type them: manual app address lists and trigger-once overrides.
 * They follow the rule executors' registrations follow (the protocol's `executorAddressProblem`:
 * http(s) base URLs with a host, without credentials, query or fragment, at most 255
 * characters), and an override must be an address the app already knows, so the REST API can
 * never be used to make the server call an arbitrary URL (XXL-JOB's SSRF advisories came from
 * trusting user-supplied addresses).
 */
import { executorAddressProblem, MAX_EXECUTOR_ADDRESS_LENGTH } from '@tickwheel/protocol';
import { invalidField } from './errors.js';

/**
 * The address as stored: a WHATWG-normalised http(s) URL (`http://10.0.0.5:9999/`).
 *
 * @throws ApiError 400 naming `field` when it is not an executor address.
 */
export function normaliseExecutorAddress(text: string, field: string): string {
  const trimmed = text.trim();
  const problem = executorAddressProblem(trimmed);
  if (problem !== undefined) throw invalidField(field, `${field}: '${text}' ${problem}`);
  // Normalising can add a character (the trailing slash); the fire records hold 255.
  const address = new URL(trimmed).href;
  if (address.length > MAX_EXECUTOR_ADDRESS_LENGTH) {
    throw invalidField(
      field,
      `${field}: '${text}' must be at most ${MAX_EXECUTOR_ADDRESS_LENGTH} characters`,
    );
  }
  return address;
}

/** Normalises every address of a list, naming the bad one as `field[i]`. */
export function normaliseAddressList(list: readonly string[], field: string): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  list.forEach((text, i) => {
    const address = normaliseExecutorAddress(text, `${field}[${i}]`);
    if (!seen.has(address)) out.push(address);
    seen.add(address);
  });
  return out;
}

/** The stored comma-separated list as an array. */
export function splitAddressList(stored: string | null): string[] {
  if (stored === null) return [];
  return stored
    .split(',')
    .map((a) => a.trim())
    .filter((a) => a !== '');
}

/** True when two addresses name the same executor (a trailing slash does not count). */
export function sameAddress(a: string, b: string): boolean {
  return withoutTrailingSlash(a) === withoutTrailingSlash(b);
}

function withoutTrailingSlash(address: string): string {
  return address.endsWith('/') ? address.slice(0, -1) : address;
}

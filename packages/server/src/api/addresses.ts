/**
 * Executor addresses as users type them: manual app address lists and trigger-once overrides.
 * Only http(s) base URLs pass, and an override must be an address the app already knows, so the
 * REST API can never be used to make the server call an arbitrary URL (XXL-JOB's SSRF
 * advisories came from trusting user-supplied addresses).
 */
import { invalidField } from './errors.js';

/**
 * The address as stored: a WHATWG-normalised http(s) URL (`http://10.0.0.5:9999/`).
 *
 * @throws ApiError 400 naming `field` when it is not an http(s) base URL.
 */
export function normaliseExecutorAddress(text: string, field: string): string {
  const trimmed = text.trim();
  let url: URL;
  try {
    url = new URL(trimmed);
  } catch {
    throw invalidField(field, `${field}: '${text}' is not a URL (e.g. http://10.0.0.5:9999/)`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw invalidField(field, `${field}: '${text}' must be an http or https URL`);
  }
  if (url.username !== '' || url.password !== '' || url.search !== '' || url.hash !== '') {
    throw invalidField(
      field,
      `${field}: '${text}' must be a base URL without credentials, query or fragment`,
    );
  }
  // Address lists are stored comma-separated.
  if (/[\s,]/.test(trimmed))
    throw invalidField(field, `${field}: '${text}' must not contain spaces or commas`);
  return url.href;
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

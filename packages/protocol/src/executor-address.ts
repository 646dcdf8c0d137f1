/**
 * What an executor's address may be: the base URL a server calls (`http://10.0.0.5:9999/`), as an
 * executor registers it (`registryValue`) and as a user types it (an app's manual address list, a
 * trigger-once override). One rule for all of them, because every one of them ends up as a URL
 * the server sends runs, the access token included, to.
 */

/** The longest address: the registry and fire record columns that hold one are VARCHAR(255). */
export const MAX_EXECUTOR_ADDRESS_LENGTH = 255;

/**
 * The characters of a URL (RFC 3986) less `?`, `#` and `@`, which would start a query, a fragment
 * or credentials, and less `,`, which separates the addresses of a stored address list. Keeping
 * to them also refuses `\`, which WHATWG URLs read as `/` (so `http://a\@b/` would call `a`).
 */
const ADDRESS_CHARACTERS = /^[A-Za-z0-9._~:/[\]%!$&'()*+;=-]+$/;
const HTTP_SCHEME = /^https?:\/\/[^/]/i;

/**
 * Why `address` cannot be an executor's address, or undefined when it can: an `http:` or
 * `https:` URL written out with `//` and a host, without credentials, query or fragment, of at
 * most `MAX_EXECUTOR_ADDRESS_LENGTH` URL characters. XXL-JOB executors register
 * `http://<ip>:<port>/`, with or without the trailing slash; both pass. The reason reads after
 * the address (`'ftp://h/' must be an http or https URL`).
 *
 * @example
 * executorAddressProblem('http://10.0.0.5:9999/'); // undefined
 * executorAddressProblem('file:///etc/passwd');    // 'must be an http or https URL'
 */
export function executorAddressProblem(address: string): string | undefined {
  if (address.length > MAX_EXECUTOR_ADDRESS_LENGTH) {
    return `must be at most ${MAX_EXECUTOR_ADDRESS_LENGTH} characters`;
  }
  let url: URL;
  try {
    url = new URL(address);
  } catch {
    return 'is not a URL (e.g. http://10.0.0.5:9999/)';
  }
  // The scheme as written, too: WHATWG reads `http:host`, `http:/host` and `http:///host` as `http://host/`.
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || !HTTP_SCHEME.test(address)) {
    return 'must be an http or https URL (e.g. http://10.0.0.5:9999/)';
  }
  if (url.username !== '' || url.password !== '' || address.includes('@')) {
    return 'must not carry credentials (user:password@)';
  }
  if (/[?#]/.test(address)) return 'must be a base URL, without query or fragment';
  if (!ADDRESS_CHARACTERS.test(address)) {
    return "must hold only letters, digits and - . _ ~ : / [ ] % ! $ & ' ( ) * + ; = (no spaces or commas)";
  }
  return undefined;
}

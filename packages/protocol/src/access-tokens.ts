/**
 * What makes an executor access token too weak to start with. The token is all that stands
 * between the network and running code on an executor (XXL-JOB's executor RCE advisories came
 * from a blank or a published default token), so the server and the executor refuse a short one
 * and the ones printed in XXL-JOB's and Tickwheel's own docs and samples.
 */

/** The fewest characters a token may have: 32 (a random one of 24 bytes in base64 is 32). */
export const MIN_ACCESS_TOKEN_LENGTH = 32;

/**
 * Tokens published in XXL-JOB's configuration samples and articles, compared in lower case.
 * A token of 32 characters or more from this list is still refused.
 */
export const KNOWN_PUBLIC_TOKENS: ReadonlySet<string> = new Set([
  'default_token',
  'xxl-job',
  'xxl_job',
  'xxljob',
  'token',
  'secret',
  'changeme',
  'change_me',
  'accesstoken',
  'access_token',
  'xxl-job-access-token',
  'tickwheel',
]);

/** The commands a message suggests to make a strong token. */
export const GENERATE_TOKEN_HINT =
  "generate one with `openssl rand -base64 32` or `node -e \"console.log(require('node:crypto').randomBytes(32).toString('base64url'))\"`";

/**
 * Why `token` is too weak, or undefined when it is not. `what` names the setting in the message,
 * e.g. `accessToken` or `--token`.
 *
 * @example
 * weakTokenProblem('default_token', '--token');
 * // "--token: 'default_token' is a published default token, which anyone can use; generate one with …"
 */
export function weakTokenProblem(token: string, what: string): string | undefined {
  if (KNOWN_PUBLIC_TOKENS.has(token.trim().toLowerCase())) {
    return `${what}: '${token.trim()}' is a published default token, which anyone can use; ${GENERATE_TOKEN_HINT}`;
  }
  if (token.length < MIN_ACCESS_TOKEN_LENGTH) {
    return `${what}: must be at least ${MIN_ACCESS_TOKEN_LENGTH} characters (got ${token.length}); ${GENERATE_TOKEN_HINT}`;
  }
  if (/^(.)\1*$/su.test(token)) {
    return `${what}: one character repeated is no secret; ${GENERATE_TOKEN_HINT}`;
  }
  return undefined;
}

/**
 * The exit codes of the commands that talk to a server, so a script can tell a refusal from an
 * outage: `tickwheel job start 7 || case $? in 3) retry later ;; 5) create it ;; esac`.
 */
export const EXIT_CODES = {
  /** Done. */
  ok: 0,
  /** The server refused the operation (bad input, a conflict) or the operation failed. */
  failed: 1,
  /** The command line itself is wrong: an unknown command or flag, a bad flag value. */
  usage: 2,
  /** No server answered at `--url`: not running, wrong address, or too slow. */
  unreachable: 3,
  /** The server refused the credentials (401) or the caller's permissions (403). */
  auth: 4,
  /** The id or name given does not exist (404). */
  notFound: 5,
} as const;

export type ExitCode = (typeof EXIT_CODES)[keyof typeof EXIT_CODES];

/** The exit code of an HTTP error status the REST API answered with. */
export function exitCodeOfStatus(status: number): ExitCode {
  if (status === 401 || status === 403) return EXIT_CODES.auth;
  if (status === 404) return EXIT_CODES.notFound;
  return EXIT_CODES.failed;
}

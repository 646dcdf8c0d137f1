/**
 * Reading the access token from a file, so the token never sits in the executor's environment
 * or command line, which every process of the same user (scripts included) can read through
 * `/proc/<pid>/environ` and `/proc/<pid>/cmdline`.
 */
import { closeSync, fstatSync, openSync, readFileSync } from 'node:fs';
import { TickwheelError } from '@tickwheel/protocol';

/**
 * The token in `file`, without surrounding whitespace (editors and `echo` add a newline).
 * Throws `TW_ERR_INVALID_OPTION` naming `field` when the file cannot be read, is not a regular
 * file, is empty or holds more than one line. A file other users may read is only warned
 * about, not refused: mounted secrets (Kubernetes' default is 0644) are often wider than 0600
 * inside a container where no other user exists.
 *
 * @example
 * const token = readTokenFile('/etc/tickwheel/token', '--token-file', (msg) => console.error(msg));
 */
export function readTokenFile(file: string, field: string, warn: TokenFileWarning): string {
  const { text, mode } = readWholeFile(file, field);
  const token = text.trim();
  if (token === '') throw invalid(field, `${file} is empty; put the token in it`);
  if (/[\r\n]/.test(token)) throw invalid(field, `${file} must hold the token alone, on one line`);
  if ((mode & 0o077) !== 0) warnAboutMode(file, field, mode & 0o777, warn);
  return token;
}

/** Where a warning about the file's mode goes: a function of the message, or a pino logger. */
export type TokenFileWarning = ((message: string) => void) | { warn(details: object, message: string): void };

function warnAboutMode(file: string, field: string, mode: number, warn: TokenFileWarning): void {
  const octal = mode.toString(8).padStart(4, '0');
  const message = `${field}: ${file} may be read by other users (mode ${octal}); chmod 600 it`;
  if (typeof warn === 'function') warn(message);
  else warn.warn({ file, mode: octal }, message);
}

function readWholeFile(file: string, field: string): { text: string; mode: number } {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch (err) {
    throw invalid(field, `cannot read ${file}: ${(err as Error).message}`);
  }
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) throw invalid(field, `${file} is not a regular file`);
    return { text: readFileSync(fd, 'utf8'), mode: stats.mode };
  } catch (err) {
    if (err instanceof TickwheelError) throw err;
    throw invalid(field, `cannot read ${file}: ${(err as Error).message}`);
  } finally {
    closeSync(fd);
  }
}

function invalid(field: string, reason: string): TickwheelError {
  return new TickwheelError('TW_ERR_INVALID_OPTION', `${field}: ${reason}`, field);
}

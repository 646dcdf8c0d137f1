/**
 * The executor access token on the command line: `--token-file <path>` (the safe way), or
 * `--token` / an environment variable, which work but are warned about. A process's command
 * line is visible to every local user (`ps`, `/proc/<pid>/cmdline`) and its environment to
 * every process of the same user (`/proc/<pid>/environ`), scripts the executor runs included.
 */
import type { Command } from 'commander';

/** How the token was given; undefined when it was not. */
export type TokenSource = 'argv' | 'env' | 'file' | undefined;

export interface TokenFlags {
  token?: string;
  tokenFile?: string;
}

const USE_A_FILE = 'put it in a file only its owner can read (chmod 600) and pass --token-file <path>';

/**
 * Works out where the token came from, warns on stderr when it was argv or `envName`, and
 * removes it from `process.env` when it came from there, so nothing this process starts
 * inherits it (the initial environment in `/proc/self/environ` keeps it, hence the warning).
 * Exits with a usage error when the token is given two ways.
 */
export function takeTokenFlags(flags: TokenFlags, command: Command, envName: string): TokenSource {
  const valueSource = command.getOptionValueSource('token');
  // A blank token is no token: the executor then asks for one (or --insecure).
  const tokenGiven = flags.token !== undefined && flags.token.trim() !== '';
  let source: TokenSource;
  if (flags.tokenFile !== undefined) source = 'file';
  else if (tokenGiven) source = valueSource === 'env' ? 'env' : 'argv';
  if (flags.tokenFile !== undefined && tokenGiven) {
    const other = valueSource === 'env' ? envName : '--token';
    command.error(`error: give the token one way: --token-file or ${other}, not both`);
  }
  if (valueSource === 'env') delete process.env[envName];
  if (source === 'argv') {
    console.error(
      `warning: a token given with --token is visible to every local user (ps) and to scripts through /proc/<pid>/cmdline; ${USE_A_FILE}`,
    );
  } else if (source === 'env') {
    console.error(
      `warning: a token in ${envName} stays readable by every process of this user, scripts included, through /proc/<pid>/environ; ${USE_A_FILE}`,
    );
  }
  return source;
}

/** The name of the setting that gave the token, for error messages. */
export function tokenSetting(source: TokenSource, envName: string): string {
  if (source === 'file') return '--token-file';
  return source === 'env' ? envName : '--token';
}

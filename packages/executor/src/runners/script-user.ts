/**
 * Running scripts as another OS user (`uid`/`gid` options): who that user is, and whether this
 * executor may switch to them at all.
 */
import { readFileSync, statSync } from 'node:fs';
import { TickwheelError } from '@tickwheel/protocol';
import type { ScriptUserIds } from '../options.js';

/** The user a script runs as, with what its environment says about them. */
export interface ScriptAccount extends ScriptUserIds {
  /** The login name from `/etc/passwd`, when the uid has an entry. */
  name: string | undefined;
  /** The home from `/etc/passwd`, `/` when the uid has no entry. */
  home: string;
  /**
   * The working directory of its scripts: the home when it exists, else `/`. Not the executor's,
   * which the user may not be allowed to enter.
   */
  workDir: string;
}

const PASSWD = '/etc/passwd';

/**
 * The account of `ids`, looked up in `/etc/passwd` once (at start) rather than per run. A uid
 * without an entry (a container's arbitrary uid) still runs, with HOME `/`.
 */
export function scriptAccountOf(ids: ScriptUserIds, passwdFile = PASSWD): ScriptAccount {
  const entry = passwdEntry(ids.uid, passwdFile);
  const home = entry?.home || '/';
  return { ...ids, name: entry?.name, home, workDir: isDirectory(home) ? home : '/' };
}

function isDirectory(dir: string): boolean {
  try {
    return statSync(dir).isDirectory();
  } catch {
    return false;
  }
}

/**
 * Refuses ids this process cannot switch to, before anything starts: only root (or a process
 * keeping its own ids) may spawn a child as another user, and otherwise every run would fail
 * with EPERM.
 */
export function assertCanRunAs(ids: ScriptUserIds): void {
  if (process.platform === 'win32' || process.getuid === undefined || process.getgid === undefined) {
    throw invalid('uid', 'running scripts as another user is supported on Linux and macOS only');
  }
  if (process.getuid() === 0) return;
  if (ids.uid !== process.getuid()) {
    throw invalid(
      'uid',
      `EPERM: the executor runs as uid ${process.getuid()}, not root, so it cannot run scripts as uid ${ids.uid}`,
    );
  }
  if (ids.gid !== process.getgid()) {
    throw invalid(
      'gid',
      `EPERM: the executor runs as uid ${process.getuid()}, not root, so it cannot run scripts as gid ${ids.gid}`,
    );
  }
}

function passwdEntry(uid: number, passwdFile: string): { name: string; home: string } | undefined {
  let text: string;
  try {
    text = readFileSync(passwdFile, 'utf8');
  } catch {
    return undefined;
  }
  for (const line of text.split('\n')) {
    // name:password:uid:gid:gecos:home:shell
    const fields = line.split(':');
    if (fields.length >= 7 && Number(fields[2]) === uid && fields[2] !== '') {
      return { name: fields[0] ?? '', home: fields[5] ?? '' };
    }
  }
  return undefined;
}

function invalid(field: string, reason: string): TickwheelError {
  return new TickwheelError('TW_ERR_INVALID_OPTION', `${field}: ${reason}`, field);
}

/**
 * Owner-only files. What Tickwheel keeps on disk holds secrets (the SQLite store holds the
 * executor access token, the initial secrets file the first admin password), so the data
 * directory it makes is 0700 and those files 0600. Modes are set explicitly instead of being
 * left to the process umask, and a path found open to other users (a store made by an earlier
 * version, a file copied in) is narrowed and reported, for the server to say so once in its log.
 */
import { chmodSync, closeSync, fchmodSync, mkdirSync, openSync, type Stats, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Logger } from 'pino';

/** The data directory's mode: its owner only. */
export const OWNER_ONLY_DIR_MODE = 0o700;
/** The mode of a file holding secrets: read and written by its owner only. */
export const OWNER_ONLY_FILE_MODE = 0o600;
/** The group's and the others' permission bits. */
const OTHERS = 0o077;
const STICKY = 0o1000;

/** A path that was open to other users. */
export interface LooseMode {
  path: string;
  /** Its permission bits as found, e.g. 0o644. */
  mode: number;
  /** Why it could not be narrowed; absent when it is owner-only now. */
  error?: string;
}

/**
 * Creates `dir` and its missing parents 0700. An existing `dir` open to other users is narrowed
 * to 0700 when it is this user's own and not shared by nature (see `mayNarrowDir`).
 */
export function makeOwnerOnlyDir(dir: string): LooseMode | undefined {
  const created = mkdirSync(dir, { recursive: true, mode: OWNER_ONLY_DIR_MODE });
  if (created === undefined) return narrowDir(dir);
  // The umask may have taken bits off the mode mkdir was given: set it exactly.
  chmodSync(dir, OWNER_ONLY_DIR_MODE);
  return undefined;
}

/** Narrows an existing `dir` to 0700 as `makeOwnerOnlyDir` does; undefined when there is nothing to narrow. */
export function narrowDir(dir: string): LooseMode | undefined {
  const stats = statIfAny(dir);
  if (stats === undefined || (stats.mode & OTHERS) === 0 || !mayNarrowDir(dir, stats)) return undefined;
  return narrow(dir, stats, OWNER_ONLY_DIR_MODE);
}

/**
 * Creates `file` empty and 0600 when it is missing, or narrows it to 0600 when it is open to
 * other users. Made before what writes it opens it, so the secrets never sit in a readable file;
 * SQLite gives a database's -wal, -shm and -journal files the database file's own mode, so a
 * 0600 store keeps its companions 0600 whenever SQLite makes them, whatever the umask.
 */
export function makeOwnerOnlyFile(file: string): LooseMode | undefined {
  let fd: number;
  try {
    // O_EXCL: a file (or a symbolic link) someone put there first is not written through.
    fd = openSync(file, 'wx', OWNER_ONLY_FILE_MODE);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return narrowFile(file);
    throw err;
  }
  try {
    fchmodSync(fd, OWNER_ONLY_FILE_MODE);
  } finally {
    closeSync(fd);
  }
  return undefined;
}

/** Narrows an existing `file` open to other users to 0600; undefined when there is nothing to narrow. */
export function narrowFile(file: string): LooseMode | undefined {
  const stats = statIfAny(file);
  if (stats === undefined || (stats.mode & OTHERS) === 0) return undefined;
  return narrow(file, stats, OWNER_ONLY_FILE_MODE);
}

/**
 * Says once, at warn level, which paths were found open to other users, and which of them could
 * not be narrowed. Nothing when there were none.
 */
export function warnLooseModes(logger: Pick<Logger, 'warn'>, loose: readonly LooseMode[]): void {
  if (loose.length === 0) return;
  const narrowed = loose.filter((l) => l.error === undefined).map(describeLooseMode);
  const left = loose.filter((l) => l.error !== undefined).map((l) => `${describeLooseMode(l)}: ${l.error}`);
  logger.warn(
    { narrowed, ...(left.length > 0 ? { left } : {}) },
    'files that may hold secrets were open to other users; made owner-only (directories 0700, files 0600)',
  );
}

function describeLooseMode(loose: LooseMode): string {
  return `${loose.path} (was ${loose.mode.toString(8).padStart(4, '0')})`;
}

/**
 * An existing directory is narrowed only when it is this user's own and not shared by nature:
 * not one with the sticky bit (`/tmp`), the home directory or `/`. A database put straight into
 * one of those must not lock everyone else out of it; its files are 0600 all the same.
 */
function mayNarrowDir(dir: string, stats: Stats): boolean {
  if (stats.uid !== process.getuid?.() || (stats.mode & STICKY) !== 0) return false;
  const resolved = path.resolve(dir);
  return resolved !== path.resolve(os.homedir()) && resolved !== path.parse(resolved).root;
}

function narrow(target: string, stats: Stats, mode: number): LooseMode {
  const found = stats.mode & 0o777;
  try {
    chmodSync(target, mode);
    return { path: target, mode: found };
  } catch (err) {
    return { path: target, mode: found, error: (err as Error).message };
  }
}

function statIfAny(target: string): Stats | undefined {
  try {
    return statSync(target);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

/**
 * The SQLite store's files, owner-only (security/owner-only-files.ts): the directory 0700 and
 * the database file 0600 before SQLite opens it; its -wal, -shm and -journal files follow the
 * database file's mode whenever SQLite makes them, and those an earlier run left are narrowed.
 */
import path from 'node:path';
import {
  type LooseMode,
  makeOwnerOnlyDir,
  makeOwnerOnlyFile,
  narrowFile,
} from '../security/owner-only-files.js';

/** What SQLite keeps beside a database: the write-ahead log, its shared-memory index, the rollback journal. */
const COMPANION_SUFFIXES = ['-wal', '-shm', '-journal'] as const;

/** Makes the store's directory and files owner-only; returns those found open to other users. */
export function makeSqliteFilesOwnerOnly(file: string): LooseMode[] {
  const found = [
    makeOwnerOnlyDir(path.dirname(file)),
    makeOwnerOnlyFile(file),
    ...COMPANION_SUFFIXES.map((suffix) => narrowFile(`${file}${suffix}`)),
  ];
  return found.filter((loose) => loose !== undefined);
}

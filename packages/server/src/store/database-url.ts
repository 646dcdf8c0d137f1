/**
 * Reads the `database` option: one string names the dialect and where the data lives.
 *
 *   sqlite:<path> | sqlite::memory:           (a relative path is resolved against dataDir)
 *   postgres://user:pass@host:port/db?schema=name   (also postgresql://)
 *   mysql://user:pass@host:port/db                  (also mariadb://)
 */
import path from 'node:path';
import { TickwheelError } from '@tickwheel/protocol';

export type DialectName = 'sqlite' | 'postgres' | 'mysql';

export type DatabaseTarget =
  | { dialect: 'sqlite'; file: string }
  | { dialect: 'postgres'; connectionString: string; schema: string | undefined }
  | { dialect: 'mysql'; uri: string };

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

/** Parses `database`; relative SQLite paths are resolved against `dataDir` (default: the working directory). */
export function parseDatabaseUrl(database: string, dataDir?: string): DatabaseTarget {
  if (database.startsWith('sqlite:')) return sqliteTarget(database.slice('sqlite:'.length), dataDir);
  if (/^postgres(ql)?:\/\//.test(database)) return postgresTarget(database);
  if (/^(mysql|mariadb):\/\//.test(database)) {
    return { dialect: 'mysql', uri: database.replace(/^mariadb:/, 'mysql:') };
  }
  throw invalid('database must start with sqlite:, postgres://, mysql:// or mariadb://');
}

function sqliteTarget(location: string, dataDir: string | undefined): DatabaseTarget {
  if (location === '') throw invalid('database sqlite: needs a file path or :memory:');
  if (location === ':memory:') return { dialect: 'sqlite', file: ':memory:' };
  return { dialect: 'sqlite', file: path.resolve(dataDir ?? process.cwd(), location) };
}

function postgresTarget(database: string): DatabaseTarget {
  let url: URL;
  try {
    url = new URL(database);
  } catch {
    throw invalid('database is not a valid postgres:// URL');
  }
  const schema = url.searchParams.get('schema') ?? undefined;
  if (schema !== undefined && !IDENTIFIER.test(schema)) {
    throw invalid('database ?schema= must be a plain SQL identifier');
  }
  url.searchParams.delete('schema');
  return { dialect: 'postgres', connectionString: url.toString(), schema };
}

function invalid(message: string): TickwheelError {
  return new TickwheelError('TW_ERR_INVALID_OPTION', message, 'database');
}

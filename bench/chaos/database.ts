/**
 * A fresh database per run, dropped afterwards: a PostgreSQL schema `tw_bench_<random>` (through
 * bench/fire's database.ts) or a MariaDB/MySQL database `tw_chaos_<random>`. `urlVia(port)` is
 * the same database through a proxy listening on `port` on loopback.
 */
import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { createDatabase, onAdminConnection } from '../fire/database.js';

export type DatabaseKind = 'postgres' | 'mysql';

export interface ChaosDatabase {
  kind: DatabaseKind;
  /** Straight to the database: the harness's own connections. */
  url: string;
  /** The database's host and port, which the proxies forward to. */
  host: string;
  port: number;
  urlVia(proxyPort: number): string;
  drop(): Promise<void>;
}

export async function createChaosDatabase(kind: DatabaseKind, baseUrl: string): Promise<ChaosDatabase> {
  const base = new URL(baseUrl);
  const host = base.hostname;
  const port = Number(base.port || (kind === 'postgres' ? 5432 : 3306));
  const via = (url: string, proxyPort: number) => {
    const shifted = new URL(url);
    shifted.hostname = '127.0.0.1';
    shifted.port = String(proxyPort);
    return shifted.toString();
  };

  if (kind === 'postgres') {
    const database = await createDatabase('postgres', baseUrl);
    return {
      kind,
      url: database.url,
      host,
      port,
      urlVia: (proxyPort) => via(database.url, proxyPort),
      drop: () => database.drop(),
    };
  }

  const name = `tw_chaos_${randomBytes(6).toString('hex')}`;
  await onAdminConnection(baseUrl, (db) => sql.raw(`CREATE DATABASE ${name}`).execute(db));
  const url = new URL(baseUrl);
  url.pathname = `/${name}`;
  return {
    kind,
    url: url.toString(),
    host,
    port,
    urlVia: (proxyPort) => via(url.toString(), proxyPort),
    drop: () => onAdminConnection(baseUrl, (db) => sql.raw(`DROP DATABASE IF EXISTS ${name}`).execute(db)),
  };
}

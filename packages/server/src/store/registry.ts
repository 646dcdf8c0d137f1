/**
 * The registry: one row per (group, app, executor address), refreshed by each heartbeat. An
 * address is alive while its row was refreshed recently; the registry monitor deletes the rest.
 */
import { type ProtocolGeneration, REGISTRY_GROUP_EXECUTOR } from '@tickwheel/protocol';
import type { StoreConnection } from './connection.js';
import type { RegistryRow } from './schema.js';

export interface RegistryEntry {
  group: string;
  /** The app name. */
  key: string;
  /** The executor address. */
  value: string;
}

export function createRegistryRepository(conn: StoreConnection) {
  const { db } = conn;

  /**
   * Records a heartbeat: inserts the entry or refreshes its time, protocol, handler names and
   * instance, in one upsert. `handlers` or `instance` undefined (the executor sent none) stores
   * NULL: a heartbeat says what the executor has now.
   *
   * With an `instance`, answers the instance stored for the entry before this heartbeat (null: the
   * entry had none; undefined: there was no entry), read just before the upsert, so the caller
   * sees a restart at the address. Without one it answers undefined and reads nothing.
   */
  async function heartbeat(
    entry: RegistryEntry,
    protocol: ProtocolGeneration,
    nowMs: number,
    handlers?: readonly string[],
    instance?: string,
    /** Which token the executor registered with (`tokenIdOf`); undefined stores NULL. */
    tokenId?: string,
  ): Promise<string | null | undefined> {
    const before =
      instance === undefined
        ? undefined
        : await db
            .selectFrom('registry')
            .select('instance')
            .where('registry_group', '=', entry.group)
            .where('registry_key', '=', entry.key)
            .where('registry_value', '=', entry.value)
            .executeTakeFirst();
    const refreshed = {
      protocol,
      updated_at: nowMs,
      handlers: handlers === undefined ? null : JSON.stringify(handlers),
      instance: instance ?? null,
      token_id: tokenId ?? null,
    };
    const insert = db.insertInto('registry').values({
      registry_group: entry.group,
      registry_key: entry.key,
      registry_value: entry.value,
      ...refreshed,
    });
    if (conn.dialect === 'mysql') {
      await insert.onDuplicateKeyUpdate(refreshed).execute();
    } else {
      await insert
        .onConflict((oc) =>
          oc.columns(['registry_group', 'registry_key', 'registry_value']).doUpdateSet(refreshed),
        )
        .execute();
    }
    return before?.instance;
  }

  /** Removes an entry (registryRemove); true when it existed. */
  async function removeEntry(entry: RegistryEntry): Promise<boolean> {
    const result = await db
      .deleteFrom('registry')
      .where('registry_group', '=', entry.group)
      .where('registry_key', '=', entry.key)
      .where('registry_value', '=', entry.value)
      .executeTakeFirst();
    return result.numDeletedRows > 0n;
  }

  /**
   * Entries refreshed after `aliveSince`, optionally of one app, ordered by app then address.
   * Handler names are left out: every node reads this every few seconds, and they can be large.
   */
  async function listAlive(aliveSince: number, appName?: string): Promise<RegistryRow[]> {
    let query = db
      .selectFrom('registry')
      .select([
        'id',
        'registry_group',
        'registry_key',
        'registry_value',
        'protocol',
        'updated_at',
        'instance',
        'token_id',
      ])
      .where('updated_at', '>', aliveSince);
    if (appName !== undefined) query = query.where('registry_key', '=', appName);
    return query.orderBy('registry_key').orderBy('registry_value').execute();
  }

  /**
   * The executor entries of one app refreshed after `aliveSince`, with the handler names each
   * sent (null: it sent none), ordered by address.
   */
  async function listAliveHandlers(aliveSince: number, appName: string): Promise<RegisteredHandlers[]> {
    const rows = await db
      .selectFrom('registry')
      .select(['registry_value', 'handlers'])
      .where('registry_group', '=', REGISTRY_GROUP_EXECUTOR)
      .where('registry_key', '=', appName)
      .where('updated_at', '>', aliveSince)
      .orderBy('registry_value')
      .execute();
    return rows.map((row) => ({ address: row.registry_value, handlers: storedNames(row.handlers) }));
  }

  /** Deletes entries not refreshed since `before`; returns how many. */
  async function deleteDead(before: number): Promise<number> {
    const result = await db.deleteFrom('registry').where('updated_at', '<=', before).executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  return { heartbeat, removeEntry, listAlive, listAliveHandlers, deleteDead };
}

/** One online executor's handler names; null when it sent none (XXL-JOB executors). */
export interface RegisteredHandlers {
  address: string;
  handlers: string[] | null;
}

/** The stored JSON array, or null for NULL or anything that is not an array of strings. */
function storedNames(stored: string | null): string[] | null {
  if (stored === null) return null;
  try {
    const names: unknown = JSON.parse(stored);
    return Array.isArray(names) && names.every((name) => typeof name === 'string') ? names : null;
  } catch {
    return null;
  }
}

export type RegistryRepository = ReturnType<typeof createRegistryRepository>;

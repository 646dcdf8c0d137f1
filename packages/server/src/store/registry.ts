/**
 * The registry: one row per (group, app, executor address), refreshed by each heartbeat. An
 * address is alive while its row was refreshed recently; the registry monitor deletes the rest.
 */
import type { ProtocolGeneration } from '@tickwheel/protocol';
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

  /** Records a heartbeat: inserts the entry or refreshes its time and protocol, in one upsert. */
  async function heartbeat(entry: RegistryEntry, protocol: ProtocolGeneration, nowMs: number): Promise<void> {
    const insert = db.insertInto('registry').values({
      registry_group: entry.group,
      registry_key: entry.key,
      registry_value: entry.value,
      protocol,
      updated_at: nowMs,
    });
    if (conn.dialect === 'mysql') {
      await insert.onDuplicateKeyUpdate({ protocol, updated_at: nowMs }).execute();
    } else {
      await insert
        .onConflict((oc) =>
          oc
            .columns(['registry_group', 'registry_key', 'registry_value'])
            .doUpdateSet({ protocol, updated_at: nowMs }),
        )
        .execute();
    }
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

  /** Entries refreshed after `aliveSince`, optionally of one app, ordered by app then address. */
  async function listAlive(aliveSince: number, appName?: string): Promise<RegistryRow[]> {
    let query = db.selectFrom('registry').selectAll().where('updated_at', '>', aliveSince);
    if (appName !== undefined) query = query.where('registry_key', '=', appName);
    return query.orderBy('registry_key').orderBy('registry_value').execute();
  }

  /** Deletes entries not refreshed since `before`; returns how many. */
  async function deleteDead(before: number): Promise<number> {
    const result = await db.deleteFrom('registry').where('updated_at', '<=', before).executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  return { heartbeat, removeEntry, listAlive, deleteDead };
}

export type RegistryRepository = ReturnType<typeof createRegistryRepository>;

/** Server-wide settings as key/value rows: generated secrets and other values every node shares. */
import type { StoreConnection } from './connection.js';

export function createSettingRepository(conn: StoreConnection) {
  const { db } = conn;

  async function getSetting(key: string): Promise<string | undefined> {
    const row = await db
      .selectFrom('setting')
      .select('setting_value')
      .where('setting_key', '=', key)
      .executeTakeFirst();
    return row?.setting_value;
  }

  async function setSetting(key: string, value: string, nowMs: number): Promise<void> {
    const insert = db
      .insertInto('setting')
      .values({ setting_key: key, setting_value: value, updated_at: nowMs });
    if (conn.dialect === 'mysql') {
      await insert.onDuplicateKeyUpdate({ setting_value: value, updated_at: nowMs }).execute();
    } else {
      await insert
        .onConflict((oc) => oc.column('setting_key').doUpdateSet({ setting_value: value, updated_at: nowMs }))
        .execute();
    }
  }

  /**
   * The value of `key`, created with `make()` when absent. When several nodes start at once,
   * every one of them gets the value of whichever insert landed first (insert-if-absent, then
   * read), so a generated secret is generated once.
   *
   * @example
   * const token = await store.settings.getOrCreateSetting('executor.accessToken', () => randomToken(), Date.now());
   */
  async function getOrCreateSetting(key: string, make: () => string, nowMs: number): Promise<string> {
    const existing = await getSetting(key);
    if (existing !== undefined) return existing;
    const insert = db
      .insertInto('setting')
      .values({ setting_key: key, setting_value: make(), updated_at: nowMs });
    if (conn.dialect === 'mysql') await insert.ignore().execute();
    else await insert.onConflict((oc) => oc.column('setting_key').doNothing()).execute();
    return (await getSetting(key))!;
  }

  return { getSetting, setSetting, getOrCreateSetting };
}

export type SettingRepository = ReturnType<typeof createSettingRepository>;

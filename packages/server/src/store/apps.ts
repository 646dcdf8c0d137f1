/**
 * Executor apps (XXL-JOB's executor groups): the name executors register under and where their
 * addresses come from.
 */
import type { StoreConnection } from './connection.js';
import { containsText } from './contains-text.js';
import { editedAt } from './edited-at.js';
import { insertReturningId } from './insert-id.js';
import type { AppGroupRow } from './schema.js';

/** What the executor API checks tokens against, per app. */
export type AppCredentialRow = Pick<
  AppGroupRow,
  'id' | 'app_name' | 'access_token' | 'previous_access_token' | 'previous_token_until'
>;

export interface NewApp {
  appName: string;
  title: string;
  addressType: 'AUTO' | 'MANUAL';
  addressList?: string | null;
  /** The app's own executor token; null or absent: the installation token (compatibility mode). */
  accessToken?: string | null;
  /** Where the app was imported from; null or absent: made here. */
  origin?: string | null;
}

export interface AppPatch {
  title?: string;
  addressType?: 'AUTO' | 'MANUAL';
  addressList?: string | null;
  /** Null clears it. */
  origin?: string | null;
}

export interface AppFilter {
  appName?: string;
  title?: string;
  limit?: number;
  offset?: number;
}

export function createAppRepository(conn: StoreConnection) {
  const { db } = conn;

  async function createApp(app: NewApp, nowMs: number): Promise<AppGroupRow> {
    const id = await insertReturningId(
      conn.dialect,
      db.insertInto('app_group').values({
        app_name: app.appName,
        title: app.title,
        address_type: app.addressType,
        address_list: app.addressList ?? null,
        access_token: app.accessToken ?? null,
        origin: app.origin ?? null,
        created_at: nowMs,
        updated_at: nowMs,
      }),
    );
    return (await findAppById(id))!;
  }

  async function updateApp(id: number, patch: AppPatch, nowMs: number): Promise<boolean> {
    const result = await db
      .updateTable('app_group')
      .set({
        ...(patch.title === undefined ? {} : { title: patch.title }),
        ...(patch.addressType === undefined ? {} : { address_type: patch.addressType }),
        ...(patch.addressList === undefined ? {} : { address_list: patch.addressList }),
        ...(patch.origin === undefined ? {} : { origin: patch.origin }),
        updated_at: editedAt(nowMs),
      })
      .where('id', '=', id)
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  /** Writes the address list of an AUTO app refreshed from the registry. */
  /**
   * Writes the registered address list of an AUTO app (the registry sweep's view). An app a
   * user switched to MANUAL meanwhile keeps the list they typed.
   */
  async function setAddressList(id: number, addressList: string | null, nowMs: number): Promise<void> {
    await db
      .updateTable('app_group')
      .set({ address_list: addressList, updated_at: editedAt(nowMs) })
      .where('id', '=', id)
      .where('address_type', '=', 'AUTO')
      .execute();
  }

  /**
   * Gives the app `token` as its executor token; the one it replaces (its own, or the
   * installation token for an app in compatibility mode) stays accepted until `previousUntil`
   * (none when that is not after `nowMs`). One statement: a concurrent rotation cannot lose a
   * token in between. False when there is no such app.
   */
  async function rotateAppToken(
    id: number,
    token: string,
    previousUntil: number,
    nowMs: number,
  ): Promise<boolean> {
    const overlap = previousUntil > nowMs;
    // `previous_access_token` first: MySQL assigns left to right, each seeing the ones before.
    const result = await db
      .updateTable('app_group')
      .set((eb) => ({
        previous_access_token: overlap ? eb.ref('access_token') : null,
        previous_token_until: overlap ? previousUntil : null,
        access_token: token,
        updated_at: editedAt(nowMs),
      }))
      .where('id', '=', id)
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  /** Every app's executor credentials (for the executor API's token check), by app name. */
  async function listAppCredentials(): Promise<AppCredentialRow[]> {
    return db
      .selectFrom('app_group')
      .select(['id', 'app_name', 'access_token', 'previous_access_token', 'previous_token_until'])
      .execute();
  }

  async function deleteApp(id: number): Promise<boolean> {
    const result = await db.deleteFrom('app_group').where('id', '=', id).executeTakeFirst();
    return result.numDeletedRows > 0n;
  }

  /**
   * Deletes the app when no job uses it, counting and deleting in one transaction so a job created
   * meanwhile cannot be left without its app: 'deleted', 'missing', or the number of jobs using it.
   */
  async function deleteAppIfUnused(id: number): Promise<'deleted' | 'missing' | number> {
    return db.transaction().execute(async (trx) => {
      const app = await trx.selectFrom('app_group').select('id').where('id', '=', id).executeTakeFirst();
      if (app === undefined) return 'missing' as const;
      const used = await trx
        .selectFrom('job')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('app_id', '=', id)
        .executeTakeFirstOrThrow();
      if (Number(used.n) > 0) return Number(used.n);
      await trx.deleteFrom('app_group').where('id', '=', id).execute();
      return 'deleted' as const;
    });
  }

  async function findAppsByIds(ids: readonly number[]): Promise<AppGroupRow[]> {
    if (ids.length === 0) return [];
    return db
      .selectFrom('app_group')
      .selectAll()
      .where('id', 'in', [...new Set(ids)])
      .execute();
  }

  async function findAppById(id: number): Promise<AppGroupRow | undefined> {
    return db.selectFrom('app_group').selectAll().where('id', '=', id).executeTakeFirst();
  }

  async function findAppByName(appName: string): Promise<AppGroupRow | undefined> {
    return db.selectFrom('app_group').selectAll().where('app_name', '=', appName).executeTakeFirst();
  }

  function filtered(filter: AppFilter) {
    let query = db.selectFrom('app_group');
    if (filter.appName) query = query.where(containsText('app_name', filter.appName));
    if (filter.title) query = query.where(containsText('title', filter.title));
    return query;
  }

  async function listApps(filter: AppFilter = {}): Promise<AppGroupRow[]> {
    return filtered(filter)
      .selectAll()
      .orderBy('app_name')
      .limit(filter.limit ?? 1000)
      .offset(filter.offset ?? 0)
      .execute();
  }

  async function countApps(filter: AppFilter = {}): Promise<number> {
    const row = await filtered(filter)
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  return {
    createApp,
    updateApp,
    setAddressList,
    rotateAppToken,
    listAppCredentials,
    deleteApp,
    deleteAppIfUnused,
    findAppById,
    findAppsByIds,
    findAppByName,
    listApps,
    countApps,
  };
}

export type AppRepository = ReturnType<typeof createAppRepository>;

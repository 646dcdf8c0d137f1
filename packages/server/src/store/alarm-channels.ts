/**
 * Alarm channels an admin configured (SMTP, webhook, group robots). The config is stored as the
 * JSON the alarms module validated; this repository neither reads nor masks it.
 */
import type { StoreConnection } from './connection.js';
import { insertReturningId } from './insert-id.js';
import type { AlarmChannelRow } from './schema.js';

export interface NewAlarmChannel {
  name: string;
  type: string;
  enabled: boolean;
  /** JSON text. */
  config: string;
}

export type AlarmChannelPatch = Partial<NewAlarmChannel>;

export function createAlarmChannelRepository(conn: StoreConnection) {
  const { db } = conn;

  async function createAlarmChannel(channel: NewAlarmChannel, nowMs: number): Promise<AlarmChannelRow> {
    const id = await insertReturningId(
      conn.dialect,
      db.insertInto('alarm_channel').values({
        name: channel.name,
        type: channel.type,
        enabled: channel.enabled ? 1 : 0,
        config: channel.config,
        created_at: nowMs,
        updated_at: nowMs,
      }),
    );
    return (await findAlarmChannelById(id))!;
  }

  async function findAlarmChannelById(id: number): Promise<AlarmChannelRow | undefined> {
    return db.selectFrom('alarm_channel').selectAll().where('id', '=', id).executeTakeFirst();
  }

  async function findAlarmChannelByName(name: string): Promise<AlarmChannelRow | undefined> {
    return db.selectFrom('alarm_channel').selectAll().where('name', '=', name).executeTakeFirst();
  }

  /** The channels of these ids that exist, in id order. */
  async function findAlarmChannelsByIds(ids: readonly number[]): Promise<AlarmChannelRow[]> {
    if (ids.length === 0) return [];
    return db
      .selectFrom('alarm_channel')
      .selectAll()
      .where('id', 'in', [...ids])
      .orderBy('id')
      .execute();
  }

  /** Every channel, in id order (an admin configures a handful, so there is no paging). */
  async function listAlarmChannels(
    filter: { type?: string; enabled?: boolean } = {},
  ): Promise<AlarmChannelRow[]> {
    let query = db.selectFrom('alarm_channel').selectAll();
    if (filter.type !== undefined) query = query.where('type', '=', filter.type);
    if (filter.enabled !== undefined) query = query.where('enabled', '=', filter.enabled ? 1 : 0);
    return query.orderBy('id').execute();
  }

  /** Changes the given columns; true when the channel exists. */
  async function updateAlarmChannel(id: number, patch: AlarmChannelPatch, nowMs: number): Promise<boolean> {
    const result = await db
      .updateTable('alarm_channel')
      .set({
        ...(patch.name === undefined ? {} : { name: patch.name }),
        ...(patch.type === undefined ? {} : { type: patch.type }),
        ...(patch.enabled === undefined ? {} : { enabled: patch.enabled ? 1 : 0 }),
        ...(patch.config === undefined ? {} : { config: patch.config }),
        updated_at: nowMs,
      })
      .where('id', '=', id)
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  async function deleteAlarmChannel(id: number): Promise<boolean> {
    const result = await db.deleteFrom('alarm_channel').where('id', '=', id).executeTakeFirst();
    return result.numDeletedRows > 0n;
  }

  /** Ids of the jobs that alarm through channel `id` (job.alarm_channel_ids is a comma-separated list). */
  async function findJobsUsingAlarmChannel(id: number): Promise<number[]> {
    const rows = await db
      .selectFrom('job')
      .select(['id', 'alarm_channel_ids'])
      .where('alarm_channel_ids', '!=', '')
      .orderBy('id')
      .execute();
    return rows
      .filter((row) => row.alarm_channel_ids.split(',').some((part) => Number(part) === id))
      .map((row) => row.id);
  }

  return {
    createAlarmChannel,
    findAlarmChannelById,
    findAlarmChannelByName,
    findAlarmChannelsByIds,
    listAlarmChannels,
    updateAlarmChannel,
    deleteAlarmChannel,
    findJobsUsingAlarmChannel,
  };
}

export type AlarmChannelRepository = ReturnType<typeof createAlarmChannelRepository>;

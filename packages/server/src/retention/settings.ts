/**
 * Retention settings, shared by every node through the `setting` table: how many days fire
 * records are kept. An admin changes them with `updateRetentionSettings`; the retention monitor
 * reads them at each sweep, so a change applies from the next sweep on every node.
 */
import type { SettingRepository } from '../store/index.js';

export interface RetentionSettings {
  /** Fire records scheduled more than this many days ago are deleted. */
  retentionDays: number;
}

export const RETENTION_LIMITS = {
  defaultDays: 30,
  /**
   * Never less: the reports monitor recomputes today and yesterday from the fire records, so
   * they must still all be there (a day partly deleted would lose figures already counted).
   */
  minDays: 3,
  maxDays: 3_650,
} as const;

const RETENTION_DAYS_KEY = 'retention.fireDays';

export async function readRetentionSettings(
  settings: Pick<SettingRepository, 'getSetting'>,
): Promise<RetentionSettings> {
  const stored = Number(await settings.getSetting(RETENTION_DAYS_KEY));
  // A value written by hand outside the API is held to the same bounds.
  const retentionDays = Number.isInteger(stored)
    ? Math.min(RETENTION_LIMITS.maxDays, Math.max(RETENTION_LIMITS.minDays, stored))
    : RETENTION_LIMITS.defaultDays;
  return { retentionDays };
}

/** Stores the settings; the caller has validated them (the API's schema holds the bounds). */
export async function writeRetentionSettings(
  settings: Pick<SettingRepository, 'setSetting'>,
  value: RetentionSettings,
  nowMs: number,
): Promise<void> {
  await settings.setSetting(RETENTION_DAYS_KEY, String(value.retentionDays), nowMs);
}

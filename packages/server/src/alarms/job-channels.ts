/**
 * Which channels a job's alarm goes through: the enabled channels among its
 * `alarmChannelIds`, and — for jobs that only fill in `alarmEmail`, as every XXL-JOB job does —
 * every enabled EMAIL channel when none of its chosen channels is one.
 */
import type { AlarmChannelRepository, AlarmChannelRow, JobRow } from '../store/index.js';
import { splitEmails } from './alarm-message.js';

/** `"3,5"` → `[3, 5]` (the stored form of `alarmChannelIds`). */
export function parseChannelIds(stored: string): number[] {
  return stored
    .split(',')
    .map((part) => Number(part.trim()))
    .filter((id) => Number.isInteger(id) && id > 0);
}

/**
 * True when a job names alarm targets (channels or e-mail addresses): only its alarms are owed
 * on the record and sent again after a crash. Whether a named channel is enabled is the
 * queue's to find out when it sends.
 */
export function namesAlarmTargets(job: Pick<JobRow, 'alarm_channel_ids' | 'alarm_email'>): boolean {
  return parseChannelIds(job.alarm_channel_ids).length > 0 || splitEmails(job.alarm_email).length > 0;
}

export async function channelsForJob(
  channels: Pick<AlarmChannelRepository, 'findAlarmChannelsByIds' | 'listAlarmChannels'>,
  job: Pick<JobRow, 'alarm_channel_ids' | 'alarm_email'>,
): Promise<AlarmChannelRow[]> {
  const chosen = (await channels.findAlarmChannelsByIds(parseChannelIds(job.alarm_channel_ids))).filter(
    (row) => row.enabled === 1,
  );
  const wantsEmail = splitEmails(job.alarm_email).length > 0;
  if (!wantsEmail || chosen.some((row) => row.type === 'EMAIL')) return chosen;
  return [...chosen, ...(await channels.listAlarmChannels({ type: 'EMAIL', enabled: true }))];
}

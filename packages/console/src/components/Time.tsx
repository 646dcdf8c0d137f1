/**
 * A moment shown in the browser's time zone; with `zone` (a job's time zone) a hover shows the
 * same moment in that zone.
 */
import { Tooltip } from 'antd';
import dayjs from 'dayjs';
import { useTranslation } from 'react-i18next';

export function formatTime(epochMs: number): string {
  return dayjs(epochMs).format('YYYY-MM-DD HH:mm:ss');
}

/** The moment as wall time in `zone` (IANA name), e.g. 2026-11-23 09:00:00. */
export function formatInZone(epochMs: number, zone: string): string {
  const parts = new Intl.DateTimeFormat('en-CA', {
    timeZone: zone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    hourCycle: 'h23',
  }).formatToParts(new Date(epochMs));
  const get = (type: string) => parts.find((part) => part.type === type)?.value ?? '';
  return `${get('year')}-${get('month')}-${get('day')} ${get('hour')}:${get('minute')}:${get('second')}`;
}

export function Time({ value, zone }: { value: number | null | undefined; zone?: string }) {
  const { t } = useTranslation();
  if (value === null || value === undefined) return <span>—</span>;
  const text = <time dateTime={new Date(value).toISOString()}>{formatTime(value)}</time>;
  if (zone === undefined) return text;
  return <Tooltip title={t('common:zoneHint', { zone, time: formatInZone(value, zone) })}>{text}</Tooltip>;
}

/**
 * The next five fire times of the schedule being typed, asked of the server (`previewSchedule`,
 * the planner's own computation) once typing pauses, and shown as wall time in the chosen zone.
 */
import { useQuery } from '@tanstack/react-query';
import { Flex, Spin, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { ApiError, call, client } from '../../api/client';
import { errorText } from '../../components/ApiErrorAlert';
import { formatInZone, formatTime } from '../../components/Time';
import type { ScheduleType } from './options';
import { browserTimeZone } from './options';
import { useDebounced } from './queries';

const PREVIEW_COUNT = 5;
const TYPING_PAUSE_MS = 400;

export interface ScheduleInput {
  scheduleType: ScheduleType | undefined;
  scheduleConf: string | undefined;
  timeZone: string | undefined;
}

export function useSchedulePreview({ scheduleType, scheduleConf, timeZone }: ScheduleInput) {
  // One primitive key, so the pause restarts on any change and not on every render.
  const settled = useDebounced(JSON.stringify([scheduleType, scheduleConf ?? '', timeZone]), TYPING_PAUSE_MS);
  const [type, conf, zone] = JSON.parse(settled) as [ScheduleType | undefined, string, string | undefined];
  const asks = type !== undefined && type !== 'NONE' && conf.trim() !== '';
  const query = useQuery({
    queryKey: ['schedule-preview', type, conf, zone],
    queryFn: () =>
      call(
        client.GET('/api/v1/schedules/preview', {
          params: {
            query: { scheduleType: type!, scheduleConf: conf, timeZone: zone, count: PREVIEW_COUNT },
          },
        }),
      ),
    enabled: asks,
    retry: false,
    staleTime: 0,
  });
  const typing = settled !== JSON.stringify([scheduleType, scheduleConf ?? '', timeZone]);
  return { query, asks, typing, type, zone };
}

export type SchedulePreviewState = ReturnType<typeof useSchedulePreview>;

/** The field the preview's error names (the expression unless the server says otherwise). */
export function previewErrorField(state: SchedulePreviewState): string | undefined {
  const { error } = state.query;
  if (!state.asks || error === null) return undefined;
  return error instanceof ApiError && error.field !== undefined ? error.field : 'scheduleConf';
}

/** The server's reason, without the field name it starts with (it is shown under that field). */
export function previewReason(
  state: SchedulePreviewState,
  t: (key: string, options?: Record<string, unknown>) => string,
): string {
  const { error } = state.query;
  const field = previewErrorField(state);
  if (error instanceof ApiError && field !== undefined && error.message.startsWith(`${field}:`)) {
    return error.message.slice(field.length + 1).trim();
  }
  return errorText(error, t);
}

export function SchedulePreview({ state }: { state: SchedulePreviewState }) {
  const { t } = useTranslation('jobs');
  const { query, asks, typing, type, zone } = state;
  const body = () => {
    if (type === 'NONE') return <Typography.Text type="secondary">{t('preview.none')}</Typography.Text>;
    if (!asks) return <Typography.Text type="secondary">{t('preview.enterConf')}</Typography.Text>;
    // The server's reason is shown on the field it names; here only that nothing can be previewed.
    if (query.isError) return <Typography.Text type="danger">{t('preview.invalid')}</Typography.Text>;
    if (query.data === undefined) return <Spin size="small" />;
    const times = query.data.nextFireTimes;
    if (times.length === 0) return <Typography.Text type="secondary">{t('preview.never')}</Typography.Text>;
    const shownZone = zone ?? 'UTC';
    const local = browserTimeZone();
    return (
      <ol style={{ margin: 0, paddingInlineStart: 20 }} data-testid="schedule-preview-times">
        {times.map((time) => (
          <li key={time}>
            <time dateTime={new Date(time).toISOString()}>{formatInZone(time, shownZone)}</time>
            {local !== shownZone && (
              <Typography.Text type="secondary">
                {' '}
                {t('preview.local', { time: formatTime(time) })}
              </Typography.Text>
            )}
          </li>
        ))}
      </ol>
    );
  };
  return (
    <section
      aria-label={t('preview.title')}
      aria-live="polite"
      data-testid="schedule-preview"
      style={{ background: '#fafafa', border: '1px solid #f0f0f0', borderRadius: 8, padding: 12 }}
    >
      <Flex justify="space-between" align="center" gap="small" wrap style={{ marginBottom: 8 }}>
        <Typography.Text strong>
          {t('preview.title')}
          {type !== 'NONE' && zone !== undefined && ` (${zone})`}
        </Typography.Text>
        {(typing || query.isFetching) && <Spin size="small" />}
      </Flex>
      {body()}
      {type === 'FIX_DELAY' && asks && query.isSuccess && (
        <Typography.Paragraph type="secondary" style={{ margin: '8px 0 0' }}>
          {t('preview.fixDelay')}
        </Typography.Paragraph>
      )}
    </section>
  );
}

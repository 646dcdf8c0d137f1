/**
 * A fire's executor log as plain text in a <pre> (a job may print markup; it is shown, never
 * run), following the end while lines arrive unless the reader scrolled up. Browsers make the
 * scrolling box reachable with the keyboard; it does not announce each line (aria-live off).
 */
import { Alert, Card, Flex, Spin, Typography } from 'antd';
import { useEffect, useRef } from 'react';
import { useTranslation } from 'react-i18next';
import { ApiErrorAlert } from '../../components/ApiErrorAlert';
import type { FireLogStream } from './fire-log';

/** How close to the bottom (px) still counts as "at the end" for following new lines. */
const FOLLOW_SLACK_PX = 32;

export function FireLogView({ log }: { log: FireLogStream }) {
  const { t } = useTranslation('fires');
  const box = useRef<HTMLPreElement>(null);
  const follow = useRef(true);

  // biome-ignore lint/correctness/useExhaustiveDependencies: scrolls after each appended chunk
  useEffect(() => {
    const element = box.current;
    if (element !== null && follow.current) element.scrollTop = element.scrollHeight;
  }, [log.text]);

  const status = {
    waiting: t('log.waiting'),
    streaming: t('log.streaming'),
    ended: log.missing ? t('log.missing') : t('log.ended'),
    undelivered: t('log.undelivered'),
    error: '',
  }[log.state];

  return (
    <Card title={t('log.title')} size="small" styles={{ body: { padding: 0 } }}>
      {log.state === 'error' ? (
        <div style={{ padding: 12 }}>
          <ApiErrorAlert error={log.error} onRetry={log.retry} />
        </div>
      ) : log.state === 'undelivered' ? (
        <div style={{ padding: 12 }}>
          <Alert type="info" showIcon title={status} />
        </div>
      ) : null}
      {log.droppedLines > 0 && (
        <Typography.Text
          type="secondary"
          style={{ display: 'block', padding: '8px 12px' }}
          data-testid="fire-log-dropped"
        >
          {t('log.dropped', { count: log.droppedLines })}
        </Typography.Text>
      )}
      {log.state !== 'undelivered' && (
        <pre
          ref={box}
          data-testid="fire-log"
          role="log"
          aria-label={t('log.title')}
          aria-live="off"
          onScroll={(event) => {
            const element = event.currentTarget;
            follow.current =
              element.scrollHeight - element.scrollTop - element.clientHeight <= FOLLOW_SLACK_PX;
          }}
          style={{
            margin: 0,
            padding: 12,
            minHeight: 120,
            maxHeight: '60vh',
            overflow: 'auto',
            whiteSpace: 'pre-wrap',
            wordBreak: 'break-all',
            fontSize: 12,
            lineHeight: 1.5,
            background: '#1f1f1f',
            color: '#e8e8e8',
          }}
        >
          {log.text}
        </pre>
      )}
      {log.state !== 'error' && log.state !== 'undelivered' && (
        <Flex
          align="center"
          gap="small"
          style={{ padding: '8px 12px' }}
          data-testid="fire-log-state"
          data-state={log.state}
        >
          {(log.state === 'streaming' || log.state === 'waiting') && <Spin size="small" />}
          <Typography.Text type="secondary">
            {log.state === 'ended' && log.text === '' && !log.missing ? t('log.empty') : status}
          </Typography.Text>
        </Flex>
      )}
    </Card>
  );
}

/**
 * One app's executors (`listAppExecutors`): address, protocol and last heartbeat, asked again
 * every few seconds while shown. A manual app's are the addresses typed in for it, those that do
 * not register shown without a heartbeat. A pull executor (`transport` http-pull, an address
 * `pull://<instance>/`) has a "pull" tag beside its address, a Redis-stream executor (`transport`
 * redis, an address `stream://<instance>/`) a "redis" tag.
 */
import { useQuery } from '@tanstack/react-query';
import { Badge, Empty, Flex, Table, Tag, Tooltip, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { call, client } from '../../api/client';
import type { App, AppExecutor } from '../../api/types';
import { ApiErrorAlert } from '../../components/ApiErrorAlert';
import { Time } from '../../components/Time';

const REFRESH_MS = 5_000;

export function AppExecutors({ app }: { app: App }) {
  const { t } = useTranslation('apps');
  const query = useQuery({
    queryKey: ['apps', app.id, 'executors'],
    queryFn: () => call(client.GET('/api/v1/apps/{id}/executors', { params: { path: { id: app.id } } })),
    refetchInterval: REFRESH_MS,
  });
  // "How long ago" counts from when the list was fetched, so it moves on with every refresh.
  const ago = (lastBeatAt: number) => {
    const seconds = Math.max(0, Math.round((query.dataUpdatedAt - lastBeatAt) / 1000));
    return seconds < 120
      ? t('secondsAgo', { count: seconds })
      : t('minutesAgo', { count: Math.floor(seconds / 60) });
  };

  return (
    <Flex vertical gap="small" data-testid={`executors-${app.appName}`} style={{ padding: '4px 0' }}>
      <Flex justify="space-between" wrap gap="small">
        <Typography.Text strong>{t('executors', { name: app.appName })}</Typography.Text>
        <Typography.Text type="secondary">{t('autoRefresh', { seconds: REFRESH_MS / 1000 })}</Typography.Text>
      </Flex>
      {query.isError && <ApiErrorAlert error={query.error} onRetry={() => void query.refetch()} />}
      <Table<AppExecutor>
        size="small"
        rowKey="address"
        loading={query.isPending}
        dataSource={query.data?.items ?? []}
        pagination={false}
        scroll={{ x: true }}
        locale={{ emptyText: <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('noExecutors')} /> }}
        columns={[
          {
            key: 'address',
            title: t('address'),
            render: (_, row) => (
              <Flex gap="small" align="center">
                <Badge status={row.lastBeatAt === null ? 'default' : 'success'} text={row.address} />
                {row.transport === 'http-pull' && (
                  <Tooltip title={t('pullTagHint')}>
                    <Tag color="purple" data-testid={`pull-${row.address}`}>
                      {t('pullTag')}
                    </Tag>
                  </Tooltip>
                )}
                {row.transport === 'redis' && (
                  <Tooltip title={t('redisTagHint')}>
                    <Tag color="red" data-testid={`redis-${row.address}`}>
                      {t('redisTag')}
                    </Tag>
                  </Tooltip>
                )}
              </Flex>
            ),
          },
          { key: 'protocol', title: t('protocol'), dataIndex: 'protocol' },
          {
            key: 'lastBeat',
            title: t('lastBeat'),
            render: (_, row) =>
              row.lastBeatAt === null ? (
                <Typography.Text type="secondary">{t('notRegistered')}</Typography.Text>
              ) : (
                <span style={{ whiteSpace: 'nowrap' }}>
                  <Time value={row.lastBeatAt} />{' '}
                  <Typography.Text type="secondary">({ago(row.lastBeatAt)})</Typography.Text>
                </span>
              ),
          },
        ]}
      />
    </Flex>
  );
}

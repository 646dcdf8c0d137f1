/**
 * The audit trail (admin), newest first, paged, filtered by the `listAudit` filters: user,
 * action, target type, app and a time range. The filters and the page live in the URL, so a
 * reload or a shared link shows the same list.
 */
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { DatePicker, Flex, Select, Table, type TableColumnsType, Tag, Typography } from 'antd';
import dayjs from 'dayjs';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router-dom';
import { call, client } from '../../api/client';
import type { AuditEntry, Query } from '../../api/types';
import { ApiErrorAlert } from '../../components/ApiErrorAlert';
import { PageTitle } from '../../components/PageTitle';
import { Time } from '../../components/Time';
import { useAllApps } from '../../components/useAllApps';

/** Times stay on one line; the table scrolls sideways on a narrow screen instead. */
const nowrap = () => ({ style: { whiteSpace: 'nowrap' } }) as const;

type AuditQuery = Query<'listAudit'>;
type Action = NonNullable<AuditQuery['action']>;
type TargetType = NonNullable<AuditQuery['targetType']>;

const ACTIONS: readonly Action[] = [
  'CREATE',
  'UPDATE',
  'DELETE',
  'START',
  'STOP',
  'TRIGGER',
  'KILL',
  'RESTORE',
  'CHANGE_PASSWORD',
];
const TARGET_TYPES: readonly TargetType[] = [
  'APP',
  'JOB',
  'FIRE',
  'USER',
  'API_TOKEN',
  'SCRIPT',
  'ALARM_CHANNEL',
];
const PAGE_SIZE = 20;

function numberParam(params: URLSearchParams, name: string): number | undefined {
  const value = Number(params.get(name) ?? '');
  return Number.isSafeInteger(value) && value > 0 ? value : undefined;
}

function oneOf<T extends string>(values: readonly T[], value: string | null): T | undefined {
  return values.find((item) => item === value);
}

/** The filters in the URL, as `listAudit` takes them. */
function filtersOf(params: URLSearchParams): Omit<AuditQuery, 'limit' | 'offset'> {
  return {
    userId: numberParam(params, 'userId'),
    action: oneOf(ACTIONS, params.get('action')),
    targetType: oneOf(TARGET_TYPES, params.get('targetType')),
    appId: numberParam(params, 'appId'),
    from: numberParam(params, 'from'),
    to: numberParam(params, 'to'),
  };
}

/** The detail of an entry as one line of text: `username: bob · role: USER · appIds: [1,2]`. */
function detailText(detail: AuditEntry['detail']): string {
  return Object.entries(detail)
    .map(([key, value]) => `${key}: ${typeof value === 'string' ? value : JSON.stringify(value)}`)
    .join(' · ');
}

export default function AuditPage() {
  const { t } = useTranslation('audit');
  const [params, setParams] = useSearchParams();
  const filters = filtersOf(params);
  const page = numberParam(params, 'page') ?? 1;
  const { apps, byId: appsById } = useAllApps();

  const users = useQuery({
    queryKey: ['users', 'all-for-filter'],
    queryFn: () => call(client.GET('/api/v1/users', { params: { query: { limit: 200, offset: 0 } } })),
  });

  const audit = useQuery({
    queryKey: ['audit', filters, page],
    queryFn: () =>
      call(
        client.GET('/api/v1/audit', {
          params: { query: { ...filters, limit: PAGE_SIZE, offset: (page - 1) * PAGE_SIZE } },
        }),
      ),
    placeholderData: keepPreviousData,
  });

  /** Sets one filter (or clears it) and goes back to the first page. */
  const setFilter = (changes: Record<string, string | number | undefined>) => {
    const next = new URLSearchParams(params);
    for (const [name, value] of Object.entries(changes)) {
      if (value === undefined || value === '') next.delete(name);
      else next.set(name, String(value));
    }
    next.delete('page');
    setParams(next, { replace: true });
  };

  const columns: TableColumnsType<AuditEntry> = [
    { title: t('at'), dataIndex: 'at', onCell: nowrap, render: (at: number) => <Time value={at} /> },
    { title: t('user'), dataIndex: 'username' },
    {
      title: t('action'),
      dataIndex: 'action',
      render: (action: string) => {
        const known = oneOf(ACTIONS, action);
        return (
          <Tag color={action === 'DELETE' ? 'red' : undefined}>{known ? t(`actions.${known}`) : action}</Tag>
        );
      },
    },
    {
      title: t('target'),
      key: 'target',
      render: (_: unknown, entry) => {
        const known = oneOf(TARGET_TYPES, entry.targetType);
        const type = known ? t(`targets.${known}`) : entry.targetType;
        return entry.targetId === null ? type : `${type} #${entry.targetId}`;
      },
    },
    {
      title: t('app'),
      dataIndex: 'appId',
      render: (appId: number | null) =>
        appId === null ? '—' : (appsById.get(appId)?.appName ?? `#${appId}`),
    },
    {
      title: t('detail'),
      dataIndex: 'detail',
      render: (detail: AuditEntry['detail']) => (
        <Typography.Text type="secondary" style={{ wordBreak: 'break-word' }}>
          {detailText(detail)}
        </Typography.Text>
      ),
    },
  ];

  return (
    <>
      <PageTitle title={t('title')} />
      <Typography.Paragraph type="secondary">{t('intro')}</Typography.Paragraph>
      <Flex gap="small" wrap style={{ marginBottom: 16 }}>
        <Select
          aria-label={t('user')}
          allowClear
          showSearch={{ optionFilterProp: 'label' }}
          placeholder={t('anyUser')}
          style={{ minWidth: 160 }}
          loading={users.isLoading}
          value={filters.userId}
          onChange={(userId?: number) => setFilter({ userId })}
          options={(users.data?.items ?? []).map((user) => ({ value: user.id, label: user.username }))}
        />
        <Select
          aria-label={t('action')}
          allowClear
          showSearch={{ optionFilterProp: 'label' }}
          placeholder={t('anyAction')}
          style={{ minWidth: 150 }}
          value={filters.action}
          onChange={(action?: Action) => setFilter({ action })}
          options={ACTIONS.map((action) => ({ value: action, label: t(`actions.${action}`) }))}
        />
        <Select
          aria-label={t('target')}
          allowClear
          showSearch={{ optionFilterProp: 'label' }}
          placeholder={t('anyTarget')}
          style={{ minWidth: 150 }}
          value={filters.targetType}
          onChange={(targetType?: TargetType) => setFilter({ targetType })}
          options={TARGET_TYPES.map((type) => ({ value: type, label: t(`targets.${type}`) }))}
        />
        <Select
          aria-label={t('app')}
          allowClear
          showSearch={{ optionFilterProp: 'label' }}
          placeholder={t('anyApp')}
          style={{ minWidth: 160 }}
          value={filters.appId}
          onChange={(appId?: number) => setFilter({ appId })}
          options={apps.map((app) => ({ value: app.id, label: app.appName }))}
        />
        <DatePicker.RangePicker
          aria-label={t('timeRange')}
          showTime
          allowEmpty={[true, true]}
          placeholder={[t('from'), t('to')]}
          value={[
            filters.from === undefined ? null : dayjs(filters.from),
            filters.to === undefined ? null : dayjs(filters.to),
          ]}
          onChange={(range) =>
            setFilter({ from: range?.[0]?.valueOf() ?? undefined, to: range?.[1]?.valueOf() ?? undefined })
          }
        />
      </Flex>
      {audit.error ? (
        <ApiErrorAlert error={audit.error} onRetry={() => void audit.refetch()} />
      ) : (
        <Table<AuditEntry>
          rowKey="id"
          columns={columns}
          dataSource={audit.data?.items}
          loading={audit.isFetching}
          scroll={{ x: true }}
          locale={{ emptyText: t('common:states.empty') }}
          pagination={{
            current: page,
            pageSize: PAGE_SIZE,
            total: audit.data?.total ?? 0,
            showSizeChanger: false,
            showTotal: (count) => t('common:total', { count }),
            onChange: (next) => {
              const nextParams = new URLSearchParams(params);
              nextParams.set('page', String(next));
              setParams(nextParams);
            },
          }}
        />
      )}
    </>
  );
}

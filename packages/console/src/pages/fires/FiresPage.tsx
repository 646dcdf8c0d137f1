/**
 * Fire records: filters (app, job, status, scheduled time) kept in the URL, server paging, and a
 * refresh every few seconds while the list can change by itself (an open time range, or one that
 * can still hold fires pending or running). A row opens the record's detail.
 */
import { DeleteOutlined, ReloadOutlined } from '@ant-design/icons';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import {
  Button,
  DatePicker,
  Flex,
  Form,
  Grid,
  Select,
  Switch,
  Table,
  type TableColumnsType,
  Typography,
} from 'antd';
import dayjs, { type Dayjs } from 'dayjs';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate } from 'react-router-dom';
import { call, client } from '../../api/client';
import type { Fire } from '../../api/types';
import { ApiErrorAlert } from '../../components/ApiErrorAlert';
import { PageTitle } from '../../components/PageTitle';
import { Time } from '../../components/Time';
import { ClearFiresModal } from './ClearFiresModal';
import { FireStatusTag } from './FireStatusTag';
import { mayChange, PAGE_SIZES, toListQuery, useFireFilters } from './fire-filters';
import { FIRE_STATUSES, type FireStatusName } from './fire-status';
import { JobSelect } from './JobSelect';
import { useApps, useJob, useJobsById } from './lookups';

const REFRESH_MS = 3_000;
const NO_WRAP = { whiteSpace: 'nowrap' } as const;

export default function FiresPage() {
  const { t } = useTranslation('fires');
  const navigate = useNavigate();
  const screens = Grid.useBreakpoint();
  const narrow = screens.md === false;
  const [filters, setFilters] = useFireFilters();
  const [autoRefresh, setAutoRefresh] = useState(true);
  const [clearing, setClearing] = useState(false);
  const apps = useApps();

  const query = toListQuery(filters);
  const refreshing = autoRefresh && mayChange(filters, Date.now());
  const fires = useQuery({
    queryKey: ['listFires', query],
    queryFn: () => call(client.GET('/api/v1/fires', { params: { query } })),
    placeholderData: keepPreviousData,
    refetchInterval: refreshing ? REFRESH_MS : false,
  });
  const items = fires.data?.items ?? [];
  const jobs = useJobsById(items.map((fire) => fire.jobId));
  const filterJob = useJob(filters.jobId);

  const columns: TableColumnsType<Fire> = [
    {
      key: 'id',
      title: t('columns.id'),
      dataIndex: 'id',
      render: (id: number) => (
        <Link to={`/fires/${id}`} onClick={(event) => event.stopPropagation()}>
          {id}
        </Link>
      ),
    },
    {
      key: 'job',
      title: t('columns.job'),
      render: (_, fire) => {
        const job = jobs.get(fire.jobId);
        return (
          <Link to={`/jobs/${fire.jobId}`} onClick={(event) => event.stopPropagation()}>
            {job ? job.name : t('jobNumber', { id: fire.jobId })}
          </Link>
        );
      },
    },
    {
      key: 'scheduledAt',
      title: t('columns.scheduledAt'),
      render: (_, fire) => (
        <span style={NO_WRAP}>
          <Time value={fire.scheduledAt} zone={jobs.get(fire.jobId)?.timeZone} />
        </span>
      ),
    },
    {
      key: 'triggerAt',
      title: t('columns.triggerAt'),
      render: (_, fire) => (
        <span style={NO_WRAP}>
          <Time value={fire.triggerAt} zone={jobs.get(fire.jobId)?.timeZone} />
        </span>
      ),
    },
    {
      key: 'triggerType',
      title: t('columns.triggerType'),
      dataIndex: 'triggerType',
      render: (type: string) => t(`triggerType.${type}`, { defaultValue: type }),
    },
    {
      key: 'executor',
      title: t('columns.executor'),
      dataIndex: 'executorAddress',
      render: (address: string | null) => address ?? '—',
    },
    {
      key: 'shard',
      title: t('columns.shard'),
      render: (_, fire) => `${fire.shardIndex}/${fire.shardTotal}`,
    },
    {
      key: 'status',
      title: t('columns.status'),
      dataIndex: 'status',
      render: (status: string) => <FireStatusTag status={status} />,
    },
    {
      key: 'handleCode',
      title: t('columns.handleCode'),
      dataIndex: 'handleCode',
      render: (code: number | null) => code ?? '—',
    },
    {
      key: 'handleMsg',
      title: t('columns.handleMsg'),
      dataIndex: 'handleMsg',
      render: (msg: string | null) =>
        msg === null || msg === '' ? (
          '—'
        ) : (
          <Typography.Text ellipsis={{ tooltip: msg }} style={{ maxWidth: 240 }}>
            {msg}
          </Typography.Text>
        ),
    },
  ];

  const range: [Dayjs, Dayjs] | null =
    filters.from !== undefined && filters.to !== undefined ? [dayjs(filters.from), dayjs(filters.to)] : null;

  return (
    <>
      <PageTitle
        title={t('title')}
        extra={
          <>
            <Flex align="center" gap="small">
              <Switch
                id="fires-auto-refresh"
                size="small"
                checked={refreshing}
                disabled={!mayChange(filters, Date.now())}
                onChange={setAutoRefresh}
              />
              <label
                htmlFor="fires-auto-refresh"
                title={t('autoRefreshHint', { seconds: REFRESH_MS / 1000 })}
              >
                {t('autoRefresh')}
              </label>
            </Flex>
            <Button icon={<ReloadOutlined />} onClick={() => void fires.refetch()} loading={fires.isFetching}>
              {t('common:actions.refresh')}
            </Button>
            <Button danger icon={<DeleteOutlined />} onClick={() => setClearing(true)}>
              {t('clear.button')}
            </Button>
          </>
        }
      />
      <Form
        layout={narrow ? 'vertical' : 'inline'}
        style={{ marginBottom: 16, rowGap: 8 }}
        aria-label={t('filters.label')}
      >
        <Form.Item
          label={t('filters.app')}
          htmlFor="fires-app"
          style={narrow ? { marginBottom: 8 } : undefined}
        >
          <Select<number>
            id="fires-app"
            allowClear
            placeholder={t('filters.allApps')}
            style={{ width: narrow ? '100%' : 200 }}
            value={filters.appId}
            loading={apps.isLoading}
            options={(apps.data ?? []).map((app) => ({ value: app.id, label: app.title || app.appName }))}
            showSearch={{ optionFilterProp: 'label' }}
            onChange={(appId) => setFilters({ appId: appId ?? undefined, jobId: undefined })}
          />
        </Form.Item>
        <Form.Item
          label={t('filters.job')}
          htmlFor="fires-job"
          style={narrow ? { marginBottom: 8 } : undefined}
        >
          <JobSelect
            id="fires-job"
            appId={filters.appId}
            value={filters.jobId}
            style={{ width: narrow ? '100%' : 240 }}
            onChange={(jobId) => setFilters({ jobId })}
          />
        </Form.Item>
        <Form.Item
          label={t('filters.status')}
          htmlFor="fires-status"
          style={narrow ? { marginBottom: 8 } : undefined}
        >
          <Select<FireStatusName[]>
            id="fires-status"
            mode="multiple"
            allowClear
            placeholder={t('filters.anyStatus')}
            style={{ minWidth: narrow ? '100%' : 220 }}
            value={filters.status}
            options={FIRE_STATUSES.map((status) => ({ value: status, label: t(`status.${status}`) }))}
            onChange={(status) => setFilters({ status })}
          />
        </Form.Item>
        <Form.Item
          label={t('filters.timeRange')}
          htmlFor="fires-range"
          style={narrow ? { marginBottom: 8 } : undefined}
        >
          <DatePicker.RangePicker
            id={{ start: 'fires-range' }}
            showTime
            allowEmpty={[false, false]}
            value={range}
            style={narrow ? { width: '100%' } : undefined}
            presets={[
              { label: t('presets.lastHour'), value: () => [dayjs().subtract(1, 'hour'), dayjs()] },
              { label: t('presets.last24h'), value: () => [dayjs().subtract(1, 'day'), dayjs()] },
              { label: t('presets.today'), value: () => [dayjs().startOf('day'), dayjs().endOf('day')] },
              { label: t('presets.last7d'), value: () => [dayjs().subtract(7, 'day'), dayjs()] },
            ]}
            onChange={(dates) => {
              const [from, to] = dates ?? [null, null];
              setFilters({ from: from?.valueOf(), to: to?.valueOf() });
            }}
          />
        </Form.Item>
        <Form.Item style={narrow ? { marginBottom: 8 } : undefined}>
          <Button
            onClick={() =>
              setFilters({ appId: undefined, jobId: undefined, status: [], from: undefined, to: undefined })
            }
          >
            {t('common:actions.reset')}
          </Button>
        </Form.Item>
      </Form>
      {fires.error !== null && (
        <div style={{ marginBottom: 16 }}>
          <ApiErrorAlert error={fires.error} onRetry={() => void fires.refetch()} />
        </div>
      )}
      <Table<Fire>
        data-testid="fires-table"
        rowKey="id"
        size="middle"
        columns={columns}
        dataSource={items}
        loading={fires.isLoading}
        scroll={{ x: true }}
        locale={{ emptyText: fires.isLoading ? t('common:states.loading') : t('empty') }}
        onRow={(fire) => ({
          onClick: () => navigate(`/fires/${fire.id}`),
          style: { cursor: 'pointer' },
        })}
        pagination={{
          current: filters.page,
          pageSize: filters.pageSize,
          total: fires.data?.total ?? 0,
          showSizeChanger: true,
          pageSizeOptions: PAGE_SIZES.map(String),
          showTotal: (total) => t('common:total', { count: total }),
          onChange: (page, pageSize) =>
            setFilters(pageSize === filters.pageSize ? { page } : { page: 1, pageSize }),
        }}
      />
      {clearing && (
        <ClearFiresModal
          appId={filters.appId ?? filterJob.data?.appId}
          jobId={filters.jobId}
          onClose={() => setClearing(false)}
          onCleared={() => void fires.refetch()}
        />
      )}
    </>
  );
}

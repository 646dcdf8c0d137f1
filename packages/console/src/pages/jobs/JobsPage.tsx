/**
 * The jobs list: filters (app, status, name, handler, author) and paging kept in the URL, each
 * job's schedule, handler, status switch and next fire time, and its actions — edit, trigger
 * once, script, fire records, copy, delete.
 */
import { PlusOutlined, ReloadOutlined } from '@ant-design/icons';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import {
  App as AntApp,
  Button,
  Flex,
  Input,
  Popconfirm,
  Select,
  Space,
  Switch,
  Table,
  type TableColumnsType,
  Tag,
  Typography,
} from 'antd';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useLocation, useNavigate, useSearchParams } from 'react-router-dom';
import { call, client } from '../../api/client';
import type { Job } from '../../api/types';
import { ApiErrorAlert, errorText } from '../../components/ApiErrorAlert';
import { PageTitle } from '../../components/PageTitle';
import { Time } from '../../components/Time';
import { useAllApps } from '../../components/useAllApps';
import {
  type ListFilters,
  listQuery,
  PAGE_SIZES,
  readFilters,
  type StatusFilter,
  writeFilters,
} from './listFilters';
import { isScriptJob } from './options';
import { JOBS, useJobList } from './queries';
import { TriggerModal } from './TriggerModal';

export default function JobsPage() {
  const { t } = useTranslation('jobs');
  const [params, setParams] = useSearchParams();
  const location = useLocation();
  const navigate = useNavigate();
  const filters = readFilters(params);
  const list = useJobList(listQuery(filters));
  const apps = useAllApps();
  const [triggering, setTriggering] = useState<Job>();

  /** Applies a filter change; any change but paging starts again at page 1. */
  const update = (change: Partial<ListFilters>) => {
    const paging = 'page' in change || 'pageSize' in change;
    setParams(writeFilters({ ...filters, ...(paging ? {} : { page: 1 }), ...change }));
  };
  // Past the last page (its last job was deleted, or an old link): show the last page there is.
  const lastPage = Math.max(1, Math.ceil((list.data?.total ?? 0) / filters.pageSize));
  const pastEnd = list.isSuccess && !list.isPlaceholderData && filters.page > lastPage;
  useEffect(() => {
    if (pastEnd) setParams(writeFilters({ ...filters, page: lastPage }), { replace: true });
  });
  // The list's own URL, so the form can come back to the same filtered page after saving.
  const back = { from: location.pathname + location.search };

  const columns: TableColumnsType<Job> = [
    { title: t('columns.id'), dataIndex: 'id', width: 70 },
    {
      title: t('columns.name'),
      dataIndex: 'name',
      onCell: () => ({ style: { minWidth: 140 } }),
      render: (_, job) => (
        <Link to={`/jobs/${job.id}`} state={back}>
          {job.name}
        </Link>
      ),
    },
    {
      title: t('columns.app'),
      dataIndex: 'appId',
      onCell: () => ({ style: { whiteSpace: 'nowrap' } }),
      render: (appId: number) => apps.byId.get(appId)?.appName ?? `#${appId}`,
    },
    { title: t('columns.schedule'), key: 'schedule', render: (_, job) => <ScheduleCell job={job} /> },
    {
      title: t('columns.handler'),
      key: 'handler',
      render: (_, job) =>
        isScriptJob(job.glueType) ? (
          <Tag color="purple">{t(`glueType.${job.glueType}`, { defaultValue: job.glueType })}</Tag>
        ) : (
          <Typography.Text code>{job.executorHandler}</Typography.Text>
        ),
    },
    {
      title: t('columns.status'),
      key: 'status',
      render: (_, job) => <StatusSwitch job={job} />,
    },
    {
      title: t('columns.nextFire'),
      dataIndex: 'nextFireAt',
      onCell: () => ({ style: { whiteSpace: 'nowrap' } }),
      render: (_, job) => <Time value={job.nextFireAt} zone={job.timeZone} />,
    },
    {
      title: t('columns.actions'),
      key: 'actions',
      onCell: () => ({ style: { minWidth: 240 } }),
      render: (_, job) => <JobActions job={job} back={back} onTrigger={() => setTriggering(job)} />,
    },
  ];

  return (
    <>
      <PageTitle
        title={t('title')}
        extra={
          <>
            <Button icon={<ReloadOutlined />} onClick={() => void list.refetch()} loading={list.isFetching}>
              {t('common:actions.refresh')}
            </Button>
            <Button
              type="primary"
              icon={<PlusOutlined />}
              onClick={() =>
                navigate(filters.appId === undefined ? '/jobs/new' : `/jobs/new?appId=${filters.appId}`, {
                  state: back,
                })
              }
            >
              {t('create')}
            </Button>
          </>
        }
      />
      <Flex gap="small" wrap style={{ marginBottom: 16 }} role="search" aria-label={t('filters.label')}>
        <Select
          aria-label={t('filters.app')}
          placeholder={t('filters.app')}
          allowClear
          showSearch={{ optionFilterProp: 'label' }}
          style={{ width: 200 }}
          value={filters.appId}
          loading={apps.isLoading}
          onChange={(appId?: number) => update({ appId })}
          options={apps.apps.map((app) => ({ value: app.id, label: app.appName }))}
        />
        <Select
          aria-label={t('filters.status')}
          placeholder={t('filters.status')}
          allowClear
          style={{ width: 140 }}
          value={filters.status}
          onChange={(status?: StatusFilter) => update({ status })}
          options={[
            { value: 'running', label: t('status.running') },
            { value: 'stopped', label: t('status.stopped') },
          ]}
        />
        <TextFilter label={t('filters.name')} value={filters.name} onSearch={(name) => update({ name })} />
        <TextFilter
          label={t('filters.handler')}
          value={filters.handler}
          onSearch={(handler) => update({ handler })}
        />
        <TextFilter
          label={t('filters.author')}
          value={filters.author}
          onSearch={(author) => update({ author })}
        />
        <Button onClick={() => setParams(new URLSearchParams())}>{t('common:actions.reset')}</Button>
      </Flex>
      {list.isError && (
        <div style={{ marginBottom: 16 }}>
          <ApiErrorAlert error={list.error} onRetry={() => void list.refetch()} />
        </div>
      )}
      <Table<Job>
        rowKey="id"
        size="middle"
        columns={columns}
        dataSource={list.data?.items ?? []}
        loading={list.isLoading}
        scroll={{ x: true }}
        locale={{ emptyText: list.isError ? t('common:states.error') : t('empty') }}
        pagination={{
          current: filters.page,
          pageSize: filters.pageSize,
          total: list.data?.total ?? 0,
          pageSizeOptions: PAGE_SIZES,
          showSizeChanger: true,
          showTotal: (total) => t('common:total', { count: total }),
          onChange: (page, pageSize) =>
            update(pageSize === filters.pageSize ? { page } : { page: 1, pageSize }),
        }}
      />
      {triggering !== undefined && (
        <TriggerModal key={triggering.id} job={triggering} onClose={() => setTriggering(undefined)} />
      )}
    </>
  );
}

/** A text filter applied on Enter or its search button; it follows the URL (back, reset). */
function TextFilter({
  label,
  value,
  onSearch,
}: {
  label: string;
  value: string | undefined;
  onSearch: (value: string | undefined) => void;
}) {
  return (
    <Input.Search
      key={value ?? ''}
      aria-label={label}
      placeholder={label}
      defaultValue={value}
      allowClear
      style={{ width: 200 }}
      onSearch={(text) => onSearch(text.trim() === '' ? undefined : text.trim())}
    />
  );
}

function ScheduleCell({ job }: { job: Job }) {
  const { t } = useTranslation('jobs');
  return (
    <Space size={4} wrap>
      <Tag>{t(`scheduleType.${job.scheduleType}`, { defaultValue: job.scheduleType })}</Tag>
      {job.scheduleConf !== '' && <Typography.Text code>{job.scheduleConf}</Typography.Text>}
      {job.scheduleType === 'CRON' && <Typography.Text type="secondary">{job.timeZone}</Typography.Text>}
    </Space>
  );
}

/**
 * Starts or stops scheduling; a refusal (a NONE job cannot start) says why. Stopping asks first:
 * the switch is small, sits in a dense table, and a stopped job silently misses its fires.
 */
function StatusSwitch({ job }: { job: Job }) {
  const { t } = useTranslation('jobs');
  const { message } = AntApp.useApp();
  const queryClient = useQueryClient();
  const running = job.triggerStatus === 1;
  const toggle = useMutation({
    mutationFn: () =>
      call(
        running
          ? client.POST('/api/v1/jobs/{id}/stop', { params: { path: { id: job.id } } })
          : client.POST('/api/v1/jobs/{id}/start', { params: { path: { id: job.id } } }),
      ),
    onSuccess: (updated) => {
      void message.success(t(updated.triggerStatus === 1 ? 'started' : 'stopped', { name: updated.name }));
      return queryClient.invalidateQueries({ queryKey: JOBS });
    },
    onError: (err) => void message.error(errorText(err, t), 8),
  });
  const toggleSwitch = (
    <Switch
      size="small"
      checked={running}
      loading={toggle.isPending}
      // A running job's switch only opens the confirmation around it.
      onChange={running ? undefined : () => toggle.mutate()}
      aria-label={t('status.switchLabel', { name: job.name })}
      data-testid={`job-status-${job.id}`}
    />
  );
  return (
    <Flex gap={8} align="center" style={{ whiteSpace: 'nowrap' }}>
      {running ? (
        <Popconfirm
          title={t('stopConfirm', { name: job.name })}
          okText={t('stopAction')}
          cancelText={t('common:actions.cancel')}
          okButtonProps={{ danger: true }}
          onConfirm={() => toggle.mutateAsync().catch(() => undefined)}
        >
          {toggleSwitch}
        </Popconfirm>
      ) : (
        toggleSwitch
      )}
      <Typography.Text type={running ? 'success' : 'secondary'}>
        {t(running ? 'status.running' : 'status.stopped')}
      </Typography.Text>
    </Flex>
  );
}

/** A button that reads like the links beside it (and, unlike a bare anchor, takes the focus). */
const LINK_BUTTON = { padding: 0, height: 'auto' };

function JobActions({ job, back, onTrigger }: { job: Job; back: { from: string }; onTrigger: () => void }) {
  const { t } = useTranslation('jobs');
  const { message } = AntApp.useApp();
  const queryClient = useQueryClient();
  const remove = useMutation({
    mutationFn: () => call(client.DELETE('/api/v1/jobs/{id}', { params: { path: { id: job.id } } })),
    onSuccess: () => {
      void message.success(t('common:states.deleted'));
      return queryClient.invalidateQueries({ queryKey: JOBS });
    },
    onError: (err) => void message.error(errorText(err, t), 8),
  });
  return (
    <Space size="small" wrap data-testid={`job-actions-${job.id}`}>
      <Link to={`/jobs/${job.id}`} state={back}>
        {t('common:actions.edit')}
      </Link>
      <Button type="link" size="small" style={LINK_BUTTON} onClick={onTrigger}>
        {t('actions.trigger')}
      </Button>
      {isScriptJob(job.glueType) && <Link to={`/jobs/${job.id}/script`}>{t('actions.script')}</Link>}
      <Link to={`/fires?jobId=${job.id}`}>{t('actions.fires')}</Link>
      <Link to={`/jobs/new?copyFrom=${job.id}`} state={back}>
        {t('common:actions.copy')}
      </Link>
      <Popconfirm
        title={t('common:confirmDelete', { name: job.name })}
        okText={t('common:actions.delete')}
        cancelText={t('common:actions.cancel')}
        okButtonProps={{ danger: true, loading: remove.isPending }}
        onConfirm={() => remove.mutateAsync().catch(() => undefined)}
      >
        <Button type="link" size="small" danger style={LINK_BUTTON}>
          {t('common:actions.delete')}
        </Button>
      </Popconfirm>
    </Space>
  );
}

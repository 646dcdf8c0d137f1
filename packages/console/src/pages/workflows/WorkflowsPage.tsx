/**
 * The workflows list: filters (app, name, schedule status) and paging kept in the URL; each
 * workflow's schedule, node count, schedule switch and next fire time, and its actions — edit,
 * trigger once with a param, runs, copy, delete.
 */
import { HistoryOutlined, PlusOutlined, ReloadOutlined } from '@ant-design/icons';
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
import type { Workflow } from '../../api/workflows';
import { ApiErrorAlert, errorText } from '../../components/ApiErrorAlert';
import { PageTitle } from '../../components/PageTitle';
import { Time } from '../../components/Time';
import { useAllApps } from '../../components/useAllApps';
import {
  PAGE_SIZES,
  readWorkflowFilters,
  type ScheduleFilter,
  type WorkflowFilters,
  workflowListQuery,
  writeWorkflowFilters,
} from './filters';
import { useWorkflowList, WORKFLOWS } from './queries';
import { TriggerWorkflowModal } from './TriggerWorkflowModal';

/** A button that reads like the links beside it. */
const LINK_BUTTON = { padding: 0, height: 'auto' };

export default function WorkflowsPage() {
  const { t } = useTranslation('workflows');
  const [params, setParams] = useSearchParams();
  const location = useLocation();
  const navigate = useNavigate();
  const filters = readWorkflowFilters(params);
  const list = useWorkflowList(workflowListQuery(filters));
  const apps = useAllApps();
  const [triggering, setTriggering] = useState<Workflow>();

  const update = (change: Partial<WorkflowFilters>) => {
    const paging = 'page' in change || 'pageSize' in change;
    setParams(writeWorkflowFilters({ ...filters, ...(paging ? {} : { page: 1 }), ...change }));
  };
  const lastPage = Math.max(1, Math.ceil((list.data?.total ?? 0) / filters.pageSize));
  const pastEnd = list.isSuccess && !list.isPlaceholderData && filters.page > lastPage;
  useEffect(() => {
    if (pastEnd) setParams(writeWorkflowFilters({ ...filters, page: lastPage }), { replace: true });
  });
  const back = { from: location.pathname + location.search };

  const columns: TableColumnsType<Workflow> = [
    { title: t('columns.id'), dataIndex: 'id', width: 70 },
    {
      title: t('columns.name'),
      dataIndex: 'name',
      onCell: () => ({ style: { minWidth: 140 } }),
      render: (_, workflow) => (
        <Link to={`/workflows/${workflow.id}`} state={back}>
          {workflow.name}
        </Link>
      ),
    },
    {
      title: t('columns.app'),
      dataIndex: 'appId',
      onCell: () => ({ style: { whiteSpace: 'nowrap' } }),
      render: (appId: number) => apps.byId.get(appId)?.appName ?? `#${appId}`,
    },
    {
      title: t('columns.schedule'),
      key: 'schedule',
      render: (_, workflow) => (
        <Space size={4} wrap>
          <Tag>
            {t(`jobs:scheduleType.${workflow.scheduleType}`, { defaultValue: workflow.scheduleType })}
          </Tag>
          {workflow.scheduleConf !== '' && <Typography.Text code>{workflow.scheduleConf}</Typography.Text>}
        </Space>
      ),
    },
    {
      title: t('columns.nodes'),
      key: 'nodes',
      render: (_, workflow) => t('nodeCount', { count: workflow.nodes.length }),
    },
    {
      title: t('columns.status'),
      key: 'status',
      render: (_, workflow) => <ScheduleSwitch workflow={workflow} />,
    },
    {
      title: t('columns.nextFire'),
      dataIndex: 'nextFireAt',
      onCell: () => ({ style: { whiteSpace: 'nowrap' } }),
      render: (_, workflow) => <Time value={workflow.nextFireAt} zone={workflow.timeZone} />,
    },
    {
      title: t('columns.actions'),
      key: 'actions',
      onCell: () => ({ style: { minWidth: 220 } }),
      render: (_, workflow) => (
        <WorkflowActions workflow={workflow} back={back} onTrigger={() => setTriggering(workflow)} />
      ),
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
            <Button icon={<HistoryOutlined />} onClick={() => navigate('/workflow-runs')}>
              {t('allRuns')}
            </Button>
            <Button
              type="primary"
              icon={<PlusOutlined />}
              onClick={() =>
                navigate(
                  filters.appId === undefined ? '/workflows/new' : `/workflows/new?appId=${filters.appId}`,
                  {
                    state: back,
                  },
                )
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
          style={{ width: 160 }}
          value={filters.status}
          onChange={(status?: ScheduleFilter) => update({ status })}
          options={[
            { value: 'running', label: t('schedule.running') },
            { value: 'stopped', label: t('schedule.stopped') },
          ]}
        />
        <Input.Search
          key={filters.name ?? ''}
          aria-label={t('filters.name')}
          placeholder={t('filters.name')}
          defaultValue={filters.name}
          allowClear
          style={{ width: 200 }}
          onSearch={(text) => update({ name: text.trim() === '' ? undefined : text.trim() })}
        />
        <Button onClick={() => setParams(new URLSearchParams())}>{t('common:actions.reset')}</Button>
      </Flex>
      {list.isError && (
        <div style={{ marginBottom: 16 }}>
          <ApiErrorAlert error={list.error} onRetry={() => void list.refetch()} />
        </div>
      )}
      <Table<Workflow>
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
        <TriggerWorkflowModal
          key={triggering.id}
          workflow={triggering}
          onClose={() => setTriggering(undefined)}
        />
      )}
    </>
  );
}

/** Starts or stops the schedule; stopping asks first, as the jobs list does. */
function ScheduleSwitch({ workflow }: { workflow: Workflow }) {
  const { t } = useTranslation('workflows');
  const { message } = AntApp.useApp();
  const queryClient = useQueryClient();
  const running = workflow.triggerStatus === 1;
  const toggle = useMutation({
    mutationFn: () =>
      call(
        running
          ? client.POST('/api/v1/workflows/{id}/stop', { params: { path: { id: workflow.id } } })
          : client.POST('/api/v1/workflows/{id}/start', { params: { path: { id: workflow.id } } }),
      ),
    onSuccess: (updated) => {
      void message.success(t(updated.triggerStatus === 1 ? 'started' : 'stopped', { name: updated.name }));
      return queryClient.invalidateQueries({ queryKey: WORKFLOWS });
    },
    onError: (err) => void message.error(errorText(err, t), 8),
  });
  const control = (
    <Switch
      size="small"
      checked={running}
      loading={toggle.isPending}
      onChange={running ? undefined : () => toggle.mutate()}
      aria-label={t('schedule.switchLabel', { name: workflow.name })}
      data-testid={`workflow-schedule-${workflow.id}`}
    />
  );
  return (
    <Flex gap={8} align="center" style={{ whiteSpace: 'nowrap' }}>
      {running ? (
        <Popconfirm
          title={t('stopConfirm', { name: workflow.name })}
          okText={t('stopAction')}
          cancelText={t('common:actions.cancel')}
          okButtonProps={{ danger: true }}
          onConfirm={() => toggle.mutateAsync().catch(() => undefined)}
        >
          {control}
        </Popconfirm>
      ) : (
        control
      )}
      <Typography.Text type={running ? 'success' : 'secondary'}>
        {t(running ? 'schedule.running' : 'schedule.stopped')}
      </Typography.Text>
    </Flex>
  );
}

function WorkflowActions({
  workflow,
  back,
  onTrigger,
}: {
  workflow: Workflow;
  back: { from: string };
  onTrigger: () => void;
}) {
  const { t } = useTranslation('workflows');
  const { message } = AntApp.useApp();
  const queryClient = useQueryClient();
  const remove = useMutation({
    mutationFn: () =>
      call(client.DELETE('/api/v1/workflows/{id}', { params: { path: { id: workflow.id } } })),
    onSuccess: () => {
      void message.success(t('common:states.deleted'));
      return queryClient.invalidateQueries({ queryKey: WORKFLOWS });
    },
    onError: (err) => void message.error(errorText(err, t), 8),
  });
  return (
    <Space size="small" wrap data-testid={`workflow-actions-${workflow.id}`}>
      <Link to={`/workflows/${workflow.id}`} state={back}>
        {t('common:actions.edit')}
      </Link>
      <Button type="link" size="small" style={LINK_BUTTON} onClick={onTrigger}>
        {t('actions.trigger')}
      </Button>
      <Link to={`/workflow-runs?workflowId=${workflow.id}`}>{t('actions.runs')}</Link>
      <Link to={`/workflows/new?copyFrom=${workflow.id}`} state={back}>
        {t('common:actions.copy')}
      </Link>
      <Popconfirm
        title={t('common:confirmDelete', { name: workflow.name })}
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

/**
 * Workflow runs, newest first: all of them, or one workflow's (`?workflowId=`), narrowed by app
 * and status, each linking to its run view. Runs still going move on by themselves: the list is
 * asked for again every few seconds.
 */
import { ReloadOutlined } from '@ant-design/icons';
import { Button, Flex, Select, Table, type TableColumnsType, Tag, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { Link, useSearchParams } from 'react-router-dom';
import type { WorkflowRunSummary } from '../../api/workflows';
import { ApiErrorAlert } from '../../components/ApiErrorAlert';
import { PageTitle } from '../../components/PageTitle';
import { Time } from '../../components/Time';
import { useAllApps } from '../../components/useAllApps';
import { PAGE_SIZES, type RunFilters, readRunFilters, runListQuery, writeRunFilters } from './filters';
import { useWorkflowName, useWorkflowRuns } from './queries';
import { RunStatusTag } from './RunStatusTag';
import { runDuration, WORKFLOW_RUN_STATUSES } from './run-status';

export default function WorkflowRunsPage() {
  const { t } = useTranslation('workflows');
  const [params, setParams] = useSearchParams();
  const filters = readRunFilters(params);
  const runs = useWorkflowRuns(runListQuery(filters));
  const apps = useAllApps();
  const workflow = useWorkflowName(filters.workflowId);

  const update = (change: Partial<RunFilters>) => {
    const paging = 'page' in change || 'pageSize' in change;
    setParams(writeRunFilters({ ...filters, ...(paging ? {} : { page: 1 }), ...change }));
  };

  const columns: TableColumnsType<WorkflowRunSummary> = [
    {
      title: t('runs.columns.id'),
      dataIndex: 'id',
      width: 80,
      render: (id: number) => <Link to={`/workflow-runs/${id}`}>#{id}</Link>,
    },
    {
      title: t('runs.columns.workflow'),
      dataIndex: 'workflowName',
      render: (_, run) => <Link to={`/workflows/${run.workflowId}`}>{run.workflowName}</Link>,
    },
    {
      title: t('runs.columns.app'),
      dataIndex: 'appId',
      render: (appId: number) => apps.byId.get(appId)?.appName ?? `#${appId}`,
    },
    {
      title: t('runs.columns.status'),
      dataIndex: 'status',
      render: (status: string) => <RunStatusTag status={status} />,
    },
    {
      title: t('runs.columns.trigger'),
      dataIndex: 'triggerType',
      render: (_, run) => (
        <Flex gap={4} wrap>
          <Tag>{t(`triggerType.${run.triggerType}`, { defaultValue: run.triggerType })}</Tag>
          {run.parentRunId !== null && (
            <Link to={`/workflow-runs/${run.parentRunId}`}>{t('runs.parent', { id: run.parentRunId })}</Link>
          )}
        </Flex>
      ),
    },
    {
      title: t('runs.columns.param'),
      dataIndex: 'param',
      render: (param: string | null) =>
        param === null || param === '' ? (
          '—'
        ) : (
          <Typography.Text code ellipsis style={{ maxWidth: 200 }}>
            {param}
          </Typography.Text>
        ),
    },
    {
      title: t('runs.columns.scheduledAt'),
      dataIndex: 'scheduledAt',
      onCell: () => ({ style: { whiteSpace: 'nowrap' } }),
      render: (value: number) => <Time value={value} />,
    },
    {
      title: t('runs.columns.duration'),
      key: 'duration',
      onCell: () => ({ style: { whiteSpace: 'nowrap' } }),
      render: (_, run) => runDuration(run),
    },
  ];

  const title =
    filters.workflowId === undefined
      ? t('runs.title')
      : t('runs.titleOf', {
          name: typeof workflow.data === 'string' ? workflow.data : `#${filters.workflowId}`,
        });

  return (
    <>
      <PageTitle
        title={title}
        extra={
          <Button icon={<ReloadOutlined />} onClick={() => void runs.refetch()} loading={runs.isFetching}>
            {t('common:actions.refresh')}
          </Button>
        }
      />
      <Flex gap="small" wrap style={{ marginBottom: 16 }} role="search" aria-label={t('runs.filters.label')}>
        {filters.workflowId !== undefined && (
          <Tag closable onClose={() => update({ workflowId: undefined })} style={{ alignSelf: 'center' }}>
            {t('runs.filters.workflow', {
              name: typeof workflow.data === 'string' ? workflow.data : `#${filters.workflowId}`,
            })}
          </Tag>
        )}
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
          aria-label={t('runs.filters.status')}
          placeholder={t('runs.filters.status')}
          allowClear
          style={{ width: 160 }}
          value={filters.status}
          onChange={(status?: RunFilters['status']) => update({ status })}
          options={WORKFLOW_RUN_STATUSES.map((value) => ({ value, label: t(`status.${value}`) }))}
        />
        <Button onClick={() => setParams(new URLSearchParams())}>{t('common:actions.reset')}</Button>
      </Flex>
      {runs.isError && (
        <div style={{ marginBottom: 16 }}>
          <ApiErrorAlert error={runs.error} onRetry={() => void runs.refetch()} />
        </div>
      )}
      <Table<WorkflowRunSummary>
        rowKey="id"
        size="middle"
        columns={columns}
        dataSource={runs.data?.items ?? []}
        loading={runs.isLoading}
        scroll={{ x: true }}
        locale={{ emptyText: runs.isError ? t('common:states.error') : t('runs.empty') }}
        pagination={{
          current: filters.page,
          pageSize: filters.pageSize,
          total: runs.data?.total ?? 0,
          pageSizeOptions: PAGE_SIZES,
          showSizeChanger: true,
          showTotal: (total) => t('common:total', { count: total }),
          onChange: (page, pageSize) =>
            update(pageSize === filters.pageSize ? { page } : { page: 1, pageSize }),
        }}
      />
    </>
  );
}

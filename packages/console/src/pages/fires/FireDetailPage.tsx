/**
 * One fire record: every field (messages as preformatted text), links to its job and to the
 * records it is tied to, the executor's log streamed while the run goes on, and a kill button
 * for a running fire. The record is asked for every second until it has finished.
 */
import { StopOutlined } from '@ant-design/icons';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { App as AntApp, Button, Descriptions, type DescriptionsProps, Flex, Result, Space } from 'antd';
import { type ReactNode, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate, useParams } from 'react-router-dom';
import { ApiError, call, client } from '../../api/client';
import type { Fire } from '../../api/types';
import { ApiErrorAlert } from '../../components/ApiErrorAlert';
import { PageLoading } from '../../components/PageLoading';
import { PageTitle } from '../../components/PageTitle';
import { Time } from '../../components/Time';
import { FireLogView } from './FireLogView';
import { FireStatusTag } from './FireStatusTag';
import { useFireLog } from './fire-log';
import { isInFlight } from './fire-status';
import { useJob } from './lookups';

const REFRESH_MS = 1_000;

/** A message printed by a run or the dispatcher: several lines of text, shown as they are. */
function Preformatted({ text, testId }: { text: string | null; testId?: string }) {
  if (text === null || text === '') return <span>—</span>;
  return (
    <pre
      data-testid={testId}
      style={{
        margin: 0,
        whiteSpace: 'pre-wrap',
        wordBreak: 'break-word',
        fontFamily: 'inherit',
        maxHeight: 240,
        overflow: 'auto',
      }}
    >
      {text}
    </pre>
  );
}

/** A workflow node's fire names its run and node, and shows the output its handler gave. */
function workflowItems(
  record: Fire,
  t: (key: string, options?: Record<string, unknown>) => string,
): NonNullable<DescriptionsProps['items']> {
  const { workflowRunId, workflowNodeKey } = record as {
    workflowRunId?: number | null;
    workflowNodeKey?: string | null;
  };
  if (workflowRunId === undefined || workflowRunId === null) return [];
  return [
    {
      key: 'workflowRun',
      label: t('detail.workflowRun'),
      children: (
        <Link to={`/workflow-runs/${workflowRunId}`}>
          {t('detail.workflowRunLink', { id: workflowRunId, key: workflowNodeKey ?? '' })}
        </Link>
      ),
    },
    ...(record.output === undefined || record.output === null
      ? []
      : [
          {
            key: 'output',
            label: t('detail.output'),
            span: 2,
            children: (
              <Preformatted
                testId="fire-output"
                text={
                  typeof record.output === 'string' ? record.output : JSON.stringify(record.output, null, 2)
                }
              />
            ),
          },
        ]),
  ];
}

function FireLink({ id }: { id: number | null }) {
  return id === null ? <span>—</span> : <Link to={`/fires/${id}`}>#{id}</Link>;
}

export default function FireDetailPage() {
  const { t } = useTranslation('fires');
  const params = useParams();
  const id = /^\d+$/.test(params.id ?? '') ? Number(params.id) : undefined;
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const { modal, message } = AntApp.useApp();

  const fire = useQuery({
    queryKey: ['getFire', id],
    queryFn: () => call(client.GET('/api/v1/fires/{id}', { params: { path: { id: id! } } })),
    enabled: id !== undefined,
    refetchInterval: (query) =>
      query.state.data && isInFlight(query.state.data.status) ? REFRESH_MS : false,
  });
  const job = useJob(fire.data?.jobId);
  const app = useQuery({
    queryKey: ['getApp', fire.data?.appId],
    queryFn: () => call(client.GET('/api/v1/apps/{id}', { params: { path: { id: fire.data!.appId } } })),
    enabled: fire.data !== undefined,
    staleTime: 60_000,
  });
  const log = useFireLog(fire.data);
  const [askingScope, setAskingScope] = useState(false);

  const kill = useMutation({
    mutationFn: (fireId: number) =>
      call(client.POST('/api/v1/fires/{id}/kill', { params: { path: { id: fireId } } })),
    onSuccess: (killed) => {
      queryClient.setQueryData(['getFire', killed.id], killed);
      void queryClient.invalidateQueries({ queryKey: ['listFires'] });
      void message.success(t('kill.done'));
    },
  });

  if (id === undefined || (fire.error instanceof ApiError && fire.error.status === 404)) {
    return <Result status="404" title="404" subTitle={t('notFound', { id: params.id })} />;
  }
  if (fire.error !== null && fire.data === undefined) {
    return <ApiErrorAlert error={fire.error} onRetry={() => void fire.refetch()} />;
  }
  if (fire.data === undefined) return <PageLoading />;

  const record: Fire = fire.data;
  const zone = job.data?.timeZone;
  // The executor is asked what its kill will do before the user confirms: an XXL-JOB executor's
  // kill stops every run of the job on it, not only this one.
  const confirmKill = async () => {
    setAskingScope(true);
    const content = await killScopeText(record.id).finally(() => setAskingScope(false));
    modal.confirm({
      title: t('kill.title', { id: record.id }),
      content: <span data-testid="kill-scope">{content}</span>,
      okText: t('kill.button'),
      okButtonProps: { danger: true },
      cancelText: t('common:actions.cancel'),
      onOk: () => kill.mutateAsync(record.id).catch(() => undefined),
    });
  };
  const killScopeText = async (fireId: number): Promise<string> => {
    try {
      const { scope, executorAddress } = await call(
        client.GET('/api/v1/fires/{id}/kill-scope', { params: { path: { id: fireId } } }),
      );
      return scope === 'run' ? t('kill.content') : t('kill.contentJob', { address: executorAddress });
    } catch {
      return t('kill.contentUnknown');
    }
  };

  const item = (key: keyof Fire | 'job' | 'app' | 'shard', children: ReactNode, span?: number) => ({
    key,
    label: t(`detail.${key}`),
    children,
    ...(span === undefined ? {} : { span }),
  });
  const items: DescriptionsProps['items'] = [
    item('id', record.id),
    item('status', <FireStatusTag status={record.status} />),
    item(
      'job',
      <Link to={`/jobs/${record.jobId}`}>
        {job.data ? `${job.data.name} (#${record.jobId})` : t('jobNumber', { id: record.jobId })}
      </Link>,
    ),
    item('app', app.data ? `${app.data.title} (${app.data.appName})` : `#${record.appId}`),
    item('triggerType', t(`triggerType.${record.triggerType}`, { defaultValue: record.triggerType })),
    item('scheduledAt', <Time value={record.scheduledAt} zone={zone} />),
    item('triggerAt', <Time value={record.triggerAt} zone={zone} />),
    item('handleAt', <Time value={record.handleAt} zone={zone} />),
    item('executorAddress', record.executorAddress ?? '—'),
    item('executorHandler', record.executorHandler === '' ? '—' : record.executorHandler),
    item('shard', `${record.shardIndex}/${record.shardTotal}`),
    item('retryCount', record.retryCount),
    item('executorParam', <Preformatted text={record.executorParam} />, 3),
    item('triggerCode', record.triggerCode ?? '—'),
    item('triggerMsg', <Preformatted text={record.triggerMsg} testId="trigger-msg" />, 2),
    item('handleCode', record.handleCode ?? '—'),
    item('handleMsg', <Preformatted text={record.handleMsg} testId="handle-msg" />, 2),
    {
      key: 'parentFireId',
      label: record.triggerType === 'RETRY' ? t('detail.retriesFireId') : t('detail.parentFireId'),
      children: <FireLink id={record.parentFireId} />,
    },
    item('retryFireId', <FireLink id={record.retryFireId} />),
    item('triggeredByFireId', <FireLink id={record.triggeredByFireId} />),
    ...workflowItems(record, t),
    item('alarmStatus', t(`alarmStatus.${record.alarmStatus}`, { defaultValue: record.alarmStatus })),
    item('alarmMsg', <Preformatted text={record.alarmMsg} />, 2),
  ];

  return (
    <>
      <PageTitle
        title={
          <Space>
            {t('detailTitle', { id: record.id })}
            <FireStatusTag status={record.status} />
          </Space>
        }
        extra={
          <>
            <Button onClick={() => navigate(`/fires?jobId=${record.jobId}`)}>{t('jobRecords')}</Button>
            {record.status === 'dispatched' && (
              <Button
                danger
                icon={<StopOutlined />}
                loading={kill.isPending || askingScope}
                onClick={() => void confirmKill()}
              >
                {t('kill.button')}
              </Button>
            )}
          </>
        }
      />
      <Flex vertical gap="middle">
        {kill.error !== null && <ApiErrorAlert error={kill.error} />}
        {fire.error !== null && <ApiErrorAlert error={fire.error} onRetry={() => void fire.refetch()} />}
        <Descriptions
          bordered
          size="small"
          column={{ xs: 1, sm: 1, md: 2, lg: 3 }}
          items={items}
          data-testid="fire-fields"
        />
        <FireLogView log={log} />
      </Flex>
    </>
  );
}

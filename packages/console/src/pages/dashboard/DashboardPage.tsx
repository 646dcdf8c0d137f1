/**
 * The dashboard: jobs, executors online, today's fires by result and the fires running now, then
 * the fires per day by result and the fire lateness per day over the last 7 or 30 days. It asks
 * again every 10 s; the figures themselves are the daily reports the server recomputes every
 * minute, so the page tells both when it asked and when the server computed them: each fire figure
 * says "as of" the time it was computed, so a job just started that has fired already is not
 * contradicted by a silent 0 (the refresh button, or the next minute, brings it). An app chosen
 * in the toolbar (kept in the URL as `appId`) narrows every figure to that app. Admins are told
 * when apps still use the installation-wide executor token, with a link to the apps page.
 */
import { ReloadOutlined } from '@ant-design/icons';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import {
  Button,
  Card,
  Col,
  Empty,
  Flex,
  Row,
  Segmented,
  Select,
  Skeleton,
  Statistic,
  Tooltip,
  Typography,
} from 'antd';
import dayjs from 'dayjs';
import { lazy, type ReactNode, Suspense, useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useSearchParams } from 'react-router-dom';
import { call, client } from '../../api/client';
import type { Dashboard } from '../../api/types';
import { useAuth } from '../../auth/AuthContext';
import { ApiErrorAlert } from '../../components/ApiErrorAlert';
import { PageLoading } from '../../components/PageLoading';
import { PageTitle } from '../../components/PageTitle';
import { formatTime } from '../../components/Time';
import { InstallationTokenNotice } from '../apps/InstallationTokenNotice';
import { useApps } from '../fires/lookups';
import { firesPerDayOption, formatDuration, latenessOption, RESULT_COLORS, RESULTS } from './charts';

// ECharts is the heaviest thing on this page: the figures show while its chunk loads.
const Chart = lazy(() => import('../../components/Chart'));

const REFRESH_MS = 10_000;
const CHART_HEIGHT = 300;

type Days = 7 | 30;

export default function DashboardPage() {
  const { t } = useTranslation('dashboard');
  const [params, setParams] = useSearchParams();
  const days: Days = params.get('days') === '30' ? 30 : 7;
  const appParam = Number(params.get('appId'));
  const appId = Number.isSafeInteger(appParam) && appParam > 0 ? appParam : undefined;
  const apps = useApps();
  const { isAdmin } = useAuth();

  const query = useQuery({
    queryKey: ['dashboard', days, appId],
    queryFn: () =>
      call(
        client.GET('/api/v1/dashboard', {
          params: { query: { days, ...(appId === undefined ? {} : { appId }) } },
        }),
      ),
    refetchInterval: REFRESH_MS,
    placeholderData: keepPreviousData,
  });

  const setParam = (name: string, value: string | undefined) => {
    const next = new URLSearchParams(params);
    if (value === undefined) next.delete(name);
    else next.set(name, value);
    setParams(next, { replace: true });
  };
  const setDays = (value: Days) => setParam('days', value === 7 ? undefined : String(value));

  const toolbar = (
    <Flex gap="small" align="center" wrap>
      {query.dataUpdatedAt > 0 && (
        <Typography.Text type="secondary" data-testid="dashboard-updated-at">
          {t('updatedAt', { time: formatTime(query.dataUpdatedAt) })}
        </Typography.Text>
      )}
      <Select<number>
        aria-label={t('app')}
        data-testid="dashboard-app"
        allowClear
        placeholder={t('allApps')}
        style={{ width: 200 }}
        value={appId}
        loading={apps.isLoading}
        options={(apps.data ?? []).map((app) => ({ value: app.id, label: app.title || app.appName }))}
        showSearch={{ optionFilterProp: 'label' }}
        onChange={(value) => setParam('appId', value === undefined ? undefined : String(value))}
      />
      <Segmented<Days>
        aria-label={t('period')}
        data-testid="dashboard-days"
        value={days}
        options={[
          { label: t('days7'), value: 7 },
          { label: t('days30'), value: 30 },
        ]}
        onChange={setDays}
      />
      <Tooltip title={t('common:actions.refresh')}>
        <Button
          aria-label={t('common:actions.refresh')}
          icon={<ReloadOutlined />}
          loading={query.isFetching}
          onClick={() => void query.refetch()}
        />
      </Tooltip>
    </Flex>
  );

  return (
    <>
      <PageTitle title={t('title')} extra={toolbar} />
      {isAdmin && <InstallationTokenNotice link style={{ marginBottom: 16 }} />}
      {query.isError && (
        <div style={{ marginBottom: 16 }}>
          <ApiErrorAlert error={query.error} onRetry={() => void query.refetch()} />
        </div>
      )}
      {query.data === undefined ? (
        query.isPending && <PageLoading />
      ) : (
        <DashboardFigures data={query.data} days={days} />
      )}
    </>
  );
}

/** When the figures were computed: the time of day today, the whole moment on another day. */
function asOf(computedAt: number | null, t: (key: string, options?: Record<string, unknown>) => string) {
  if (computedAt === null) return t('asOfNever');
  const sameDay = dayjs(computedAt).isSame(dayjs(), 'day');
  return t('asOf', { time: sameDay ? dayjs(computedAt).format('HH:mm:ss') : formatTime(computedAt) });
}

function DashboardFigures({ data, days }: { data: Dashboard; days: Days }) {
  const { t, i18n } = useTranslation('dashboard');
  const today = data.series[data.series.length - 1];
  const computed = asOf(data.computedAt, t);
  // The options name the series in the current language: build them again when it changes.
  // biome-ignore lint/correctness/useExhaustiveDependencies: i18n.language changes what t returns
  const options = useMemo(
    () => ({ fires: firesPerDayOption(data.series, t), lateness: latenessOption(data.series, t) }),
    [data.series, t, i18n.language],
  );

  return (
    <Flex vertical gap={16}>
      <Row gutter={[16, 16]} data-testid="dashboard-figures">
        <Col xs={24} sm={12} xl={6}>
          <FigureCard
            title={t('jobs')}
            value={data.jobs}
            testId="figure-jobs"
            footer={
              <Typography.Text type="secondary">
                {t('enabledJobs', { count: data.enabledJobs })} · {t('apps', { count: data.apps })}
              </Typography.Text>
            }
          />
        </Col>
        <Col xs={24} sm={12} xl={6}>
          <FigureCard
            title={t('executorsOnline')}
            hint={t('executorsHint')}
            value={data.executorsOnline}
            testId="figure-executors"
          />
        </Col>
        <Col xs={24} sm={12} xl={6}>
          <FigureCard
            title={t('firesToday')}
            hint={t('firesTodayHint')}
            value={today?.total ?? 0}
            testId="figure-fires-today"
            asOf={computed}
            footer={
              <Flex wrap gap="small" data-testid="fires-today-by-result">
                {RESULTS.filter((result) => result !== 'running').map((result) => (
                  <Typography.Text key={result} type="secondary" style={{ whiteSpace: 'nowrap' }}>
                    <span
                      aria-hidden
                      style={{
                        display: 'inline-block',
                        width: 8,
                        height: 8,
                        borderRadius: 4,
                        marginRight: 4,
                        background: RESULT_COLORS[result],
                      }}
                    />
                    {t(`result.${result}`)} {today?.[result] ?? 0}
                  </Typography.Text>
                ))}
              </Flex>
            }
          />
        </Col>
        <Col xs={24} sm={12} xl={6}>
          <FigureCard
            title={t('runningNow')}
            hint={t('runningHint')}
            value={data.totals.running}
            testId="figure-running"
            asOf={computed}
            footer={
              <Typography.Text type="secondary">
                {t('meanRun', { value: formatDuration(data.totals.meanRunMs) })}
              </Typography.Text>
            }
          />
        </Col>
      </Row>
      <WorkflowFigures data={data} />
      <Typography.Text type="secondary" data-testid="dashboard-computed-at">
        {t('inPeriod', { count: data.totals.total })} ·{' '}
        {data.computedAt === null ? t('notComputed') : t('computedAt', { time: formatTime(data.computedAt) })}
      </Typography.Text>
      {data.totals.total === 0 ? (
        <Card>
          <Empty
            data-testid="dashboard-empty"
            description={
              <Flex vertical gap={4}>
                <Typography.Text strong>{t('emptyTitle')}</Typography.Text>
                <Typography.Text type="secondary">{t('emptyText', { days })}</Typography.Text>
              </Flex>
            }
          >
            <Link to="/jobs/new">
              <Button type="primary">{t('createJob')}</Button>
            </Link>
          </Empty>
        </Card>
      ) : (
        <Row gutter={[16, 16]}>
          <Col xs={24} xl={12}>
            <Card title={t('firesPerDay')}>
              <Suspense fallback={<ChartLoading />}>
                <Chart
                  option={options.fires}
                  height={CHART_HEIGHT}
                  label={t('firesPerDayLabel', { days })}
                  testId="chart-fires"
                />
              </Suspense>
            </Card>
          </Col>
          <Col xs={24} xl={12}>
            <Card
              title={
                <Tooltip title={t('latenessHint')}>
                  <span>{t('lateness')}</span>
                </Tooltip>
              }
            >
              <Suspense fallback={<ChartLoading />}>
                <Chart
                  option={options.lateness}
                  height={CHART_HEIGHT}
                  label={t('latenessLabel', { days })}
                  testId="chart-lateness"
                />
              </Suspense>
            </Card>
          </Col>
        </Row>
      )}
    </Flex>
  );
}

/** Workflows, those on schedule, and today's workflow runs by status (each a link to those runs). */
function WorkflowFigures({ data }: { data: Dashboard }) {
  const { t } = useTranslation('dashboard');
  const figures = data.workflows;
  const runs = [
    { key: 'succeeded', color: RESULT_COLORS.succeeded, value: figures.runsToday.succeeded },
    { key: 'failed', color: RESULT_COLORS.failed, value: figures.runsToday.failed },
    { key: 'running', color: RESULT_COLORS.running, value: figures.runsToday.running },
    { key: 'stopped', color: RESULT_COLORS.timeout, value: figures.runsToday.stopped },
  ] as const;
  return (
    <Row gutter={[16, 16]} data-testid="dashboard-workflows">
      <Col xs={24} sm={12} xl={6}>
        <FigureCard
          title={t('workflows')}
          value={figures.total}
          testId="figure-workflows"
          footer={
            <Typography.Text type="secondary">
              {t('enabledWorkflows', { count: figures.running })} ·{' '}
              <Link to="/workflows">{t('seeWorkflows')}</Link>
            </Typography.Text>
          }
        />
      </Col>
      <Col xs={24} sm={12} xl={6}>
        <FigureCard
          title={t('workflowRunsToday')}
          hint={t('workflowRunsTodayHint')}
          value={runs.reduce((sum, run) => sum + run.value, 0)}
          testId="figure-workflow-runs"
          footer={
            <Flex wrap gap="small" data-testid="workflow-runs-by-status">
              {runs.map((run) => (
                <Link key={run.key} to={`/workflow-runs?status=${run.key}`} style={{ whiteSpace: 'nowrap' }}>
                  <span
                    aria-hidden
                    style={{
                      display: 'inline-block',
                      width: 8,
                      height: 8,
                      borderRadius: 4,
                      marginRight: 4,
                      background: run.color,
                    }}
                  />
                  {t(`workflowResult.${run.key}`)} {run.value}
                </Link>
              ))}
            </Flex>
          }
        />
      </Col>
    </Row>
  );
}

function FigureCard({
  title,
  hint,
  value,
  footer,
  testId,
  asOf: computed,
}: {
  title: string;
  hint?: string;
  value: number;
  footer?: ReactNode;
  testId: string;
  /** For a figure of the daily reports: when the server computed it. */
  asOf?: string;
}) {
  return (
    <Card style={{ height: '100%' }} data-testid={testId}>
      <Statistic
        title={
          hint === undefined ? (
            title
          ) : (
            <Tooltip title={hint}>
              <span>{title}</span>
            </Tooltip>
          )
        }
        value={value}
        valueRender={(node) => (
          <Flex align="baseline" gap="small" wrap>
            <span data-testid={`${testId}-value`}>{node}</span>
            {computed !== undefined && (
              <Typography.Text type="secondary" style={{ fontSize: 12 }} data-testid={`${testId}-as-of`}>
                {computed}
              </Typography.Text>
            )}
          </Flex>
        )}
      />
      {footer !== undefined && <div style={{ marginTop: 8 }}>{footer}</div>}
    </Card>
  );
}

function ChartLoading() {
  return (
    <div style={{ height: CHART_HEIGHT }}>
      <Skeleton active paragraph={{ rows: 6 }} />
    </div>
  );
}

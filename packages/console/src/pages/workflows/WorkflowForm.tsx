/**
 * A workflow's fields and its graph: name and app, the schedule (with the job form's live preview
 * of the next fire times), misfire and concurrency, alarms, then the canvas. Saving checks the
 * graph as the server will (`checkWorkflowGraph`) and marks the first problem on the canvas (a
 * cycle is named and drawn in red) before anything is sent; a refusal of the server that names a
 * node or an edge is marked the same way, one naming a field under that field.
 */
import { useMutation, useQueryClient } from '@tanstack/react-query';
import {
  checkWorkflowGraph,
  WORKFLOW_CONCURRENCIES,
  WORKFLOW_SCHEDULE_TYPES,
  type WorkflowGraphProblem,
} from '@tickwheel/protocol';
import {
  Alert,
  App as AntApp,
  Button,
  Card,
  Col,
  Flex,
  Form,
  type FormRule,
  Input,
  Row,
  Select,
  Space,
  Switch,
} from 'antd';
import { useCallback, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useLocation, useNavigate } from 'react-router-dom';
import { ApiError, call, client } from '../../api/client';
import type { Workflow } from '../../api/workflows';
import { errorText } from '../../components/ApiErrorAlert';
import { showFieldError } from '../../components/formErrors';
import { PageTitle } from '../../components/PageTitle';
import { useLeaveGuard } from '../../components/useLeaveGuard';
import { AlarmChannelSelect, AppSelect, TimeZoneSelect } from '../jobs/pickers';
import {
  previewErrorField,
  previewReason,
  SchedulePreview,
  useSchedulePreview,
} from '../jobs/SchedulePreview';
import { GraphEditor } from './GraphEditor';
import { WORKFLOWS } from './queries';
import { useWorkflowGraph } from './useWorkflowGraph';
import { MISFIRE_STRATEGIES, type WorkflowFormValues, workflowBody } from './workflowValues';

const CONF_PLACEHOLDER: Record<string, string> = {
  CRON: '0 0 2 * * ?',
  FIX_RATE: '3600',
  ONCE: '2026-05-01T09:30:00+08:00',
  NONE: '',
};

/** Two fields a row on wide screens, one on a phone. */
const HALF = { xs: 24, md: 12 };

/** A refusal of the server about the graph, as the editor marks problems (`edges: … cycle: A → B → A`). */
function graphProblemOf(err: unknown): WorkflowGraphProblem | undefined {
  if (!(err instanceof ApiError) || err.field === undefined || !/^(nodes|edges)\b/.test(err.field)) {
    return undefined;
  }
  const message = err.message.startsWith(`${err.field}:`)
    ? err.message.slice(err.field.length + 1).trim()
    : err.message;
  const cycle = /cycle: (.+)$/.exec(message)?.[1]?.split(' → ');
  return { field: err.field, message, ...(cycle === undefined ? {} : { cycle }) };
}

export function WorkflowForm({
  title,
  workflow,
  initialValues,
  initialGraph,
}: {
  title: string;
  /** The workflow being edited; absent for a new one or a copy. */
  workflow?: Workflow;
  initialValues: WorkflowFormValues;
  initialGraph: Pick<Workflow, 'nodes' | 'edges'>;
}) {
  const { t } = useTranslation('workflows');
  const [form] = Form.useForm<WorkflowFormValues>();
  const { message } = AntApp.useApp();
  const navigate = useNavigate();
  const location = useLocation();
  const queryClient = useQueryClient();
  const [saveError, setSaveError] = useState<unknown>();
  const [dirty, setDirty] = useState(false);
  const markDirty = useCallback(() => setDirty(true), []);
  const graph = useWorkflowGraph(initialGraph, markDirty);
  const canvas = useRef<HTMLDivElement>(null);
  const leave = useLeaveGuard(dirty, {
    title: t('leaveConfirm.title'),
    text: t('leaveConfirm.text'),
    leave: t('leaveConfirm.leave'),
    cancel: t('common:actions.cancel'),
  });

  const scheduleType = Form.useWatch('scheduleType', form) ?? initialValues.scheduleType;
  const scheduleConf = Form.useWatch('scheduleConf', form) ?? initialValues.scheduleConf;
  const timeZone = Form.useWatch('timeZone', form) ?? initialValues.timeZone;
  const preview = useSchedulePreview({ scheduleType, scheduleConf, timeZone });
  const previewField = previewErrorField(preview);
  const previewHelp = (field: string) =>
    previewField === field ? { validateStatus: 'error' as const, help: previewReason(preview, t) } : {};

  const backTo = (location.state as { from?: string } | null)?.from ?? '/workflows';
  const save = useMutation({
    mutationFn: (values: WorkflowFormValues) => {
      const body = workflowBody(values, graph.definition());
      return workflow === undefined
        ? call(
            client.POST('/api/v1/workflows', {
              body: { ...body, triggerStatus: values.startNow ? 1 : 0 },
            }),
          )
        : call(client.PATCH('/api/v1/workflows/{id}', { params: { path: { id: workflow.id } }, body }));
    },
    onMutate: () => setSaveError(undefined),
    onSuccess: async (saved) => {
      setDirty(false);
      void message.success(t('saved', { name: saved.name }));
      await queryClient.invalidateQueries({ queryKey: WORKFLOWS });
      navigate(backTo);
    },
    onError: (err) => {
      const problem = graphProblemOf(err);
      if (problem !== undefined) {
        graph.setProblem(problem);
        canvas.current?.scrollIntoView({ block: 'center' });
        return;
      }
      if (!showFieldError(form, err)) setSaveError(err);
    },
  });

  const submit = (values: WorkflowFormValues) => {
    const { nodes, edges } = graph.definition();
    const problem = checkWorkflowGraph(nodes, edges);
    if (problem !== null) {
      graph.setProblem(problem);
      canvas.current?.scrollIntoView({ block: 'center' });
      return;
    }
    save.mutate(values);
  };

  const required = (label: string): FormRule => ({
    required: true,
    message: t('required', { field: label }),
  });
  const scheduleKey = scheduleType ?? 'CRON';

  return (
    <>
      <PageTitle
        title={title}
        extra={
          workflow === undefined ? undefined : (
            <Button onClick={() => leave(`/workflow-runs?workflowId=${workflow.id}`)}>
              {t('actions.runs')}
            </Button>
          )
        }
      />
      <Form<WorkflowFormValues>
        form={form}
        layout="vertical"
        initialValues={initialValues}
        onFinish={submit}
        onValuesChange={markDirty}
        scrollToFirstError={{ block: 'center' }}
        data-testid="workflow-form"
      >
        <Space orientation="vertical" size="middle" style={{ width: '100%' }}>
          <Card title={t('sections.basics')} size="small">
            <Row gutter={16}>
              <Col {...HALF}>
                <Form.Item
                  name="appId"
                  label={t('fields.appId')}
                  extra={t('fields.appHint')}
                  rules={[required(t('fields.appId'))]}
                >
                  <AppSelect />
                </Form.Item>
              </Col>
              <Col {...HALF}>
                <Form.Item
                  name="name"
                  label={t('fields.name')}
                  rules={[required(t('fields.name')), { max: 255, message: t('tooLong', { max: 255 }) }]}
                >
                  <Input />
                </Form.Item>
              </Col>
              <Col xs={24}>
                <Form.Item
                  name="description"
                  label={t('fields.description')}
                  rules={[{ max: 1000, message: t('tooLong', { max: 1000 }) }]}
                >
                  <Input.TextArea autoSize={{ minRows: 1, maxRows: 4 }} />
                </Form.Item>
              </Col>
            </Row>
          </Card>

          <Card title={t('sections.graph')} size="small">
            <div ref={canvas}>
              <GraphEditor graph={graph} workflowId={workflow?.id} />
            </div>
          </Card>

          <Card title={t('sections.schedule')} size="small">
            <Row gutter={16}>
              <Col {...HALF}>
                <Form.Item
                  name="scheduleType"
                  label={t('fields.scheduleType')}
                  rules={[required(t('fields.scheduleType'))]}
                  {...previewHelp('scheduleType')}
                >
                  <Select
                    options={WORKFLOW_SCHEDULE_TYPES.map((value) => ({
                      value,
                      label: t(`jobs:scheduleType.${value}`),
                    }))}
                    onChange={() => form.setFieldValue('scheduleConf', '')}
                  />
                </Form.Item>
                <Form.Item
                  name="scheduleConf"
                  label={t(`jobs:confLabel.${scheduleKey}`)}
                  hidden={scheduleType === 'NONE'}
                  rules={
                    scheduleType === 'NONE'
                      ? []
                      : [
                          required(t(`jobs:confLabel.${scheduleKey}`)),
                          { max: 255, message: t('tooLong', { max: 255 }) },
                        ]
                  }
                  extra={t(`jobs:confHint.${scheduleKey}`)}
                  {...previewHelp('scheduleConf')}
                >
                  <Input
                    placeholder={CONF_PLACEHOLDER[scheduleKey]}
                    spellCheck={false}
                    autoComplete="off"
                    style={{ fontFamily: 'monospace' }}
                  />
                </Form.Item>
                <Form.Item
                  name="timeZone"
                  label={t('fields.timeZone')}
                  rules={[required(t('fields.timeZone'))]}
                  extra={t('jobs:timeZoneHint')}
                  {...previewHelp('timeZone')}
                >
                  <TimeZoneSelect />
                </Form.Item>
                <Form.Item
                  name="misfireStrategy"
                  label={t('fields.misfireStrategy')}
                  rules={[required(t('fields.misfireStrategy'))]}
                >
                  <Select
                    options={MISFIRE_STRATEGIES.map((value) => ({
                      value,
                      label: t(`jobs:misfire.${value}`),
                    }))}
                  />
                </Form.Item>
                <Form.Item
                  name="concurrency"
                  label={t('fields.concurrency')}
                  rules={[required(t('fields.concurrency'))]}
                >
                  <Select
                    options={WORKFLOW_CONCURRENCIES.map((value) => ({
                      value,
                      label: t(`concurrency.${value}`),
                      title: t(`concurrencyHint.${value}`),
                    }))}
                    optionRender={(option) => (
                      <span>
                        {option.label}
                        <br />
                        <small style={{ color: '#8c8c8c', whiteSpace: 'normal' }}>{option.data.title}</small>
                      </span>
                    )}
                  />
                </Form.Item>
              </Col>
              <Col {...HALF}>
                <SchedulePreview state={preview} />
              </Col>
            </Row>
          </Card>

          <Card title={t('sections.alarms')} size="small">
            <Row gutter={16}>
              <Col {...HALF}>
                <Form.Item
                  name="alarmChannelIds"
                  label={t('fields.alarmChannelIds')}
                  extra={t('fields.alarmHint')}
                >
                  <AlarmChannelSelect />
                </Form.Item>
              </Col>
              <Col {...HALF}>
                <Form.Item
                  name="alarmEmail"
                  label={t('fields.alarmEmail')}
                  extra={t('jobs:alarmEmailHint')}
                  rules={[{ max: 255, message: t('tooLong', { max: 255 }) }]}
                >
                  <Input placeholder="ops@example.com, oncall@example.com" autoComplete="off" />
                </Form.Item>
              </Col>
            </Row>
          </Card>

          {workflow === undefined && (
            <Form.Item
              name="startNow"
              label={t('fields.startNow')}
              valuePropName="checked"
              extra={t('fields.startNowHint')}
            >
              <Switch />
            </Form.Item>
          )}

          {saveError !== undefined && (
            <Alert
              type="error"
              showIcon
              role="alert"
              title={t('saveFailed')}
              description={errorText(saveError, t)}
              data-testid="workflow-save-error"
            />
          )}
          {graph.problem !== undefined && (
            <Alert
              type="error"
              showIcon
              title={t('editor.problemAbove')}
              data-testid="workflow-graph-refused"
            />
          )}
          <Flex gap="small" wrap>
            <Button type="primary" htmlType="submit" loading={save.isPending}>
              {t('common:actions.save')}
            </Button>
            <Button onClick={() => navigate(backTo)}>{t('common:actions.cancel')}</Button>
          </Flex>
        </Space>
      </Form>
    </>
  );
}

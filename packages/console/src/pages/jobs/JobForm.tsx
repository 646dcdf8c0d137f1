/**
 * Every field of a job, grouped in sections (one column on a phone): what and where, when (with
 * the live preview of the next fire times), how it runs, retries, and what follows a run. Saving
 * goes back to the list; a refusal marks the field the server names and says why in an alert.
 */
import { useMutation, useQueryClient } from '@tanstack/react-query';
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
  InputNumber,
  Row,
  Select,
  Space,
  Switch,
  Typography,
} from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useLocation, useNavigate } from 'react-router-dom';
import { call, client } from '../../api/client';
import type { Job } from '../../api/types';
import { errorText } from '../../components/ApiErrorAlert';
import { showFieldError } from '../../components/formErrors';
import { PageTitle } from '../../components/PageTitle';
import { useLeaveGuard } from '../../components/useLeaveGuard';
import { GroovyWarning } from '../scripts/GroovyWarning';
import { HandlerInput } from './HandlerInput';
import { type Carried, createJobBody, type JobFormValues, jobFields } from './jobValues';
import {
  ALARM_ON,
  BACKOFF_STRATEGIES,
  BLOCK_STRATEGIES,
  GLUE_TYPES,
  isScriptJob,
  MISFIRE_STRATEGIES,
  ROUTE_STRATEGIES,
  SCHEDULE_TYPES,
  type ScheduleType,
} from './options';
import { AlarmChannelSelect, AppSelect, ChildJobSelect, TimeZoneSelect } from './pickers';
import { JOBS } from './queries';
import { previewErrorField, previewReason, SchedulePreview, useSchedulePreview } from './SchedulePreview';

const MAX_RETRY_DELAY_SECONDS = 7 * 24 * 3600;

const CONF_PLACEHOLDER: Record<ScheduleType, string> = {
  CRON: '0 0/5 * * * ?',
  FIX_RATE: '30',
  FIX_DELAY: '30',
  ONCE: '2026-05-01T09:30:00+08:00',
  NONE: '',
};

interface JobFormProps {
  title: string;
  /** The job being edited; absent for a new job or a copy. */
  job?: Job;
  initialValues: JobFormValues;
  carried: Carried;
}

/** Two fields a row on wide screens, one on a phone. */
const HALF = { xs: 24, md: 12 };

export function JobForm({ title, job, initialValues, carried }: JobFormProps) {
  const { t } = useTranslation('jobs');
  const [form] = Form.useForm<JobFormValues>();
  const { message } = AntApp.useApp();
  const navigate = useNavigate();
  const location = useLocation();
  const queryClient = useQueryClient();
  const [saveError, setSaveError] = useState<unknown>();
  // Any change the user makes counts, even one undone by hand: asking once too often is cheaper
  // than losing an edit.
  const [dirty, setDirty] = useState(false);
  const leave = useLeaveGuard(dirty, {
    title: t('leaveConfirm.title'),
    text: t('leaveConfirm.text'),
    leave: t('leaveConfirm.leave'),
    cancel: t('common:actions.cancel'),
  });

  const scheduleType = Form.useWatch('scheduleType', form) ?? initialValues.scheduleType;
  const scheduleConf = Form.useWatch('scheduleConf', form) ?? initialValues.scheduleConf;
  const timeZone = Form.useWatch('timeZone', form) ?? initialValues.timeZone;
  const glueType = Form.useWatch('glueType', form) ?? initialValues.glueType;
  const backoff = Form.useWatch(['retryBackoff', 'strategy'], form) ?? initialValues.retryBackoff.strategy;
  const preview = useSchedulePreview({ scheduleType, scheduleConf, timeZone });
  const previewField = previewErrorField(preview);
  const previewHelp = (field: string) =>
    previewField === field ? { validateStatus: 'error' as const, help: previewReason(preview, t) } : {};

  const backTo = (location.state as { from?: string } | null)?.from ?? '/jobs';
  const save = useMutation({
    mutationFn: (values: JobFormValues) =>
      job === undefined
        ? call(client.POST('/api/v1/jobs', { body: createJobBody(values, carried) }))
        : call(
            client.PATCH('/api/v1/jobs/{id}', { params: { path: { id: job.id } }, body: jobFields(values) }),
          ),
    onMutate: () => setSaveError(undefined),
    onSuccess: async (saved) => {
      void message.success(t('savedJob', { name: saved.name }));
      await queryClient.invalidateQueries({ queryKey: JOBS });
      // A new script job has no script yet: writing it is the next step.
      const writeScript =
        job === undefined && isScriptJob(saved.glueType) && carried.glueSource === undefined;
      navigate(writeScript ? `/jobs/${saved.id}/script` : backTo);
    },
    onError: (err) => {
      setSaveError(err);
      showFieldError(form, err);
    },
  });

  const required = (label: string): FormRule => ({
    required: true,
    message: t('required', { field: label }),
  });
  const enumOptions = (group: string, values: readonly string[]) =>
    values.map((value) => ({ value, label: t(`${group}.${value}`) }));

  return (
    <>
      <PageTitle
        title={title}
        extra={
          job === undefined ? undefined : (
            <>
              {isScriptJob(job.glueType) && (
                <Button onClick={() => leave(`/jobs/${job.id}/script`)}>{t('actions.script')}</Button>
              )}
              <Button onClick={() => leave(`/fires?jobId=${job.id}`)}>{t('actions.fires')}</Button>
            </>
          )
        }
      />
      <Form<JobFormValues>
        form={form}
        layout="vertical"
        initialValues={initialValues}
        onFinish={(values) => save.mutate(values)}
        onValuesChange={() => setDirty(true)}
        scrollToFirstError={{ block: 'center' }}
        data-testid="job-form"
      >
        <Space orientation="vertical" size="middle" style={{ width: '100%' }}>
          <Card title={t('sections.basics')} size="small">
            <Row gutter={16}>
              <Col {...HALF}>
                <Form.Item name="appId" label={t('fields.appId')} rules={[required(t('fields.appId'))]}>
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
              <Col {...HALF}>
                <Form.Item
                  name="author"
                  label={t('fields.author')}
                  rules={[{ max: 64, message: t('tooLong', { max: 64 }) }]}
                >
                  <Input />
                </Form.Item>
              </Col>
            </Row>
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
                    options={enumOptions('scheduleType', SCHEDULE_TYPES)}
                    // An expression of one type means nothing to another.
                    onChange={() => form.setFieldValue('scheduleConf', '')}
                  />
                </Form.Item>
                <Form.Item
                  name="scheduleConf"
                  label={t(`confLabel.${scheduleType ?? 'CRON'}`)}
                  hidden={scheduleType === 'NONE'}
                  rules={
                    scheduleType === 'NONE'
                      ? []
                      : [
                          required(t(`confLabel.${scheduleType ?? 'CRON'}`)),
                          { max: 255, message: t('tooLong', { max: 255 }) },
                        ]
                  }
                  extra={t(`confHint.${scheduleType ?? 'CRON'}`)}
                  {...previewHelp('scheduleConf')}
                >
                  <Input
                    placeholder={CONF_PLACEHOLDER[scheduleType ?? 'CRON']}
                    spellCheck={false}
                    autoComplete="off"
                    style={{ fontFamily: 'monospace' }}
                  />
                </Form.Item>
                <Form.Item
                  name="timeZone"
                  label={t('fields.timeZone')}
                  rules={[required(t('fields.timeZone'))]}
                  extra={t('timeZoneHint')}
                  {...previewHelp('timeZone')}
                >
                  <TimeZoneSelect />
                </Form.Item>
                <Form.Item
                  name="misfireStrategy"
                  label={t('fields.misfireStrategy')}
                  rules={[required(t('fields.misfireStrategy'))]}
                >
                  <Select options={enumOptions('misfire', MISFIRE_STRATEGIES)} />
                </Form.Item>
              </Col>
              <Col {...HALF}>
                <SchedulePreview state={preview} />
              </Col>
            </Row>
          </Card>

          <Card title={t('sections.execution')} size="small">
            <Row gutter={16}>
              <Col {...HALF}>
                <Form.Item
                  name="glueType"
                  label={t('fields.glueType')}
                  rules={[required(t('fields.glueType'))]}
                >
                  <Select options={enumOptions('glueType', GLUE_TYPES)} />
                </Form.Item>
              </Col>
              <Col {...HALF}>
                {glueType === 'BEAN' || glueType === undefined ? (
                  <Form.Item
                    name="executorHandler"
                    label={t('fields.executorHandler')}
                    rules={[
                      required(t('fields.executorHandler')),
                      { max: 255, message: t('tooLong', { max: 255 }) },
                    ]}
                  >
                    <HandlerInput />
                  </Form.Item>
                ) : (
                  <Form.Item label={t('fields.script')}>
                    <Typography.Text type="secondary">
                      {job === undefined ? t('scriptAfterSave') : t('scriptInEditor')}
                    </Typography.Text>
                  </Form.Item>
                )}
              </Col>
              {glueType === 'GLUE_GROOVY' && (
                <Col xs={24}>
                  <GroovyWarning style={{ marginBottom: 24 }} />
                </Col>
              )}
              <Col xs={24}>
                <Form.Item name="executorParam" label={t('fields.executorParam')}>
                  <Input.TextArea autoSize={{ minRows: 1, maxRows: 8 }} spellCheck={false} />
                </Form.Item>
              </Col>
              <Col {...HALF}>
                <Form.Item
                  name="executorRouteStrategy"
                  label={t('fields.executorRouteStrategy')}
                  rules={[required(t('fields.executorRouteStrategy'))]}
                >
                  <Select options={enumOptions('route', ROUTE_STRATEGIES)} />
                </Form.Item>
              </Col>
              <Col {...HALF}>
                <Form.Item
                  name="executorBlockStrategy"
                  label={t('fields.executorBlockStrategy')}
                  rules={[required(t('fields.executorBlockStrategy'))]}
                >
                  <Select options={enumOptions('block', BLOCK_STRATEGIES)} />
                </Form.Item>
              </Col>
              <Col {...HALF}>
                <Form.Item
                  name="executorTimeout"
                  label={t('fields.executorTimeout')}
                  extra={t('timeoutHint')}
                  rules={[required(t('fields.executorTimeout'))]}
                >
                  <InputNumber min={0} max={2_147_483_647} precision={0} style={{ width: '100%' }} />
                </Form.Item>
              </Col>
            </Row>
          </Card>

          <Card title={t('sections.retries')} size="small">
            <Row gutter={16}>
              <Col {...HALF}>
                <Form.Item
                  name="executorFailRetryCount"
                  label={t('fields.executorFailRetryCount')}
                  rules={[required(t('fields.executorFailRetryCount'))]}
                >
                  <InputNumber min={0} max={1000} precision={0} style={{ width: '100%' }} />
                </Form.Item>
              </Col>
              <Col {...HALF}>
                <Form.Item
                  name={['retryBackoff', 'strategy']}
                  label={t('fields.backoffStrategy')}
                  rules={[required(t('fields.backoffStrategy'))]}
                  extra={backoff === undefined ? undefined : t(`backoffHint.${backoff}`)}
                >
                  <Select options={enumOptions('backoff', BACKOFF_STRATEGIES)} />
                </Form.Item>
              </Col>
              <Col {...HALF}>
                <Form.Item
                  name={['retryBackoff', 'delaySeconds']}
                  label={t('fields.delaySeconds')}
                  rules={[required(t('fields.delaySeconds'))]}
                >
                  <InputNumber
                    min={0}
                    max={MAX_RETRY_DELAY_SECONDS}
                    precision={0}
                    style={{ width: '100%' }}
                  />
                </Form.Item>
              </Col>
              <Col {...HALF}>
                {/* Kept (hidden) for FIXED: the API wants it in every back-off. */}
                <Form.Item
                  name={['retryBackoff', 'maxDelaySeconds']}
                  label={t('fields.maxDelaySeconds')}
                  hidden={backoff !== 'EXPONENTIAL'}
                  rules={[required(t('fields.maxDelaySeconds'))]}
                >
                  <InputNumber
                    min={0}
                    max={MAX_RETRY_DELAY_SECONDS}
                    precision={0}
                    style={{ width: '100%' }}
                  />
                </Form.Item>
              </Col>
            </Row>
          </Card>

          <Card title={t('sections.followUp')} size="small">
            <Row gutter={16}>
              <Col {...HALF}>
                <Form.Item name="childJobIds" label={t('fields.childJobIds')} extra={t('childJobsHint')}>
                  <ChildJobSelect excludeId={job?.id} />
                </Form.Item>
              </Col>
              <Col {...HALF}>
                <Form.Item name="alarmOn" label={t('fields.alarmOn')} rules={[required(t('fields.alarmOn'))]}>
                  <Select options={enumOptions('alarmOn', ALARM_ON)} />
                </Form.Item>
              </Col>
              <Col {...HALF}>
                <Form.Item name="alarmChannelIds" label={t('fields.alarmChannelIds')}>
                  <AlarmChannelSelect />
                </Form.Item>
              </Col>
              <Col {...HALF}>
                <Form.Item
                  name="alarmEmail"
                  label={t('fields.alarmEmail')}
                  extra={t('alarmEmailHint')}
                  rules={[{ max: 255, message: t('tooLong', { max: 255 }) }]}
                >
                  <Input placeholder="ops@example.com, oncall@example.com" autoComplete="off" />
                </Form.Item>
              </Col>
            </Row>
          </Card>

          {job === undefined && (
            <Form.Item
              name="startNow"
              label={t('fields.startNow')}
              valuePropName="checked"
              extra={t('startNowHint')}
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
              data-testid="job-save-error"
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

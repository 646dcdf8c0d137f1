/**
 * Fire a job once now: with its param or another one, on the executor the job's route picks or
 * on one chosen from the app's online executors. The answer names the fire records it created.
 */
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Alert, Button, Form, Input, Modal, Select, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router-dom';
import { call, client } from '../../api/client';
import type { Job } from '../../api/types';
import { ApiErrorAlert, errorText } from '../../components/ApiErrorAlert';
import { formatTime } from '../../components/Time';
import { JOBS, useAppExecutors } from './queries';

interface TriggerValues {
  executorParam: string;
  address: string | undefined;
}

export function TriggerModal({ job, onClose }: { job: Job; onClose: () => void }) {
  const { t } = useTranslation('jobs');
  const [form] = Form.useForm<TriggerValues>();
  const queryClient = useQueryClient();
  const executors = useAppExecutors(job.appId, true);
  const trigger = useMutation({
    mutationFn: ({ executorParam, address }: TriggerValues) =>
      call(
        client.POST('/api/v1/jobs/{id}/trigger', {
          params: { path: { id: job.id } },
          body: { executorParam, ...(address === undefined ? {} : { addressList: [address] }) },
        }),
      ),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: JOBS }),
  });
  const fireIds = trigger.data?.fireIds;

  return (
    <Modal
      open
      title={t('trigger.title', { name: job.name })}
      onCancel={onClose}
      destroyOnHidden
      footer={
        fireIds === undefined
          ? [
              <Button key="cancel" onClick={onClose}>
                {t('common:actions.cancel')}
              </Button>,
              <Button key="run" type="primary" loading={trigger.isPending} onClick={() => form.submit()}>
                {t('trigger.run')}
              </Button>,
            ]
          : [
              <Button key="close" type="primary" onClick={onClose}>
                {t('common:actions.close')}
              </Button>,
            ]
      }
    >
      {fireIds === undefined ? (
        <Form<TriggerValues>
          form={form}
          layout="vertical"
          initialValues={{ executorParam: job.executorParam, address: undefined }}
          onFinish={(values) => trigger.mutate(values)}
        >
          <Form.Item name="executorParam" label={t('fields.executorParam')} extra={t('trigger.paramHint')}>
            <Input.TextArea autoSize={{ minRows: 2, maxRows: 8 }} autoFocus />
          </Form.Item>
          <Form.Item name="address" label={t('trigger.address')} extra={t('trigger.addressHint')}>
            <Select
              allowClear
              loading={executors.isLoading}
              placeholder={t('trigger.addressPlaceholder')}
              notFoundContent={executors.isError ? errorText(executors.error, t) : t('trigger.noExecutors')}
              options={(executors.data?.items ?? []).map((executor) => ({
                value: executor.address,
                label: executor.address,
                detail:
                  executor.lastBeatAt === null
                    ? t('trigger.executorListed')
                    : t('trigger.executorTitle', {
                        protocol: executor.protocol,
                        time: formatTime(executor.lastBeatAt),
                      }),
              }))}
              optionRender={(option) => (
                <span>
                  {option.data.label} <Typography.Text type="secondary">{option.data.detail}</Typography.Text>
                </span>
              )}
            />
          </Form.Item>
          {trigger.isError && <ApiErrorAlert error={trigger.error} />}
        </Form>
      ) : (
        <Alert
          type="success"
          showIcon
          role="status"
          data-testid="trigger-result"
          title={t('trigger.done', { count: fireIds.length })}
          description={
            <ul style={{ margin: 0, paddingInlineStart: 20 }}>
              {fireIds.map((id) => (
                <li key={id}>
                  <Link to={`/fires/${id}`}>{t('trigger.fireLink', { id })}</Link>
                </li>
              ))}
              <li>
                <Link to={`/fires?jobId=${job.id}`}>{t('trigger.allFires')}</Link>
              </li>
            </ul>
          }
        />
      )}
    </Modal>
  );
}

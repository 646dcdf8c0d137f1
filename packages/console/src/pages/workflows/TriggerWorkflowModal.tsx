/** Runs a workflow once now, with an optional param (`${run.param}` in its nodes), and links to the run. */
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Alert, Button, Form, Input, Modal } from 'antd';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router-dom';
import { call, client } from '../../api/client';
import type { Workflow } from '../../api/workflows';
import { ApiErrorAlert } from '../../components/ApiErrorAlert';
import { placeholder } from './placeholders';
import { WORKFLOW_RUNS } from './queries';

export function TriggerWorkflowModal({ workflow, onClose }: { workflow: Workflow; onClose: () => void }) {
  const { t } = useTranslation('workflows');
  const [form] = Form.useForm<{ param: string }>();
  const queryClient = useQueryClient();
  const trigger = useMutation({
    mutationFn: ({ param }: { param: string }) =>
      call(
        client.POST('/api/v1/workflows/{id}/trigger', {
          params: { path: { id: workflow.id } },
          body: param === '' ? {} : { param },
        }),
      ),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: WORKFLOW_RUNS }),
  });
  const runId = trigger.data?.runId;

  return (
    <Modal
      open
      title={t('trigger.title', { name: workflow.name })}
      onCancel={onClose}
      destroyOnHidden
      footer={
        runId === undefined
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
      {runId === undefined ? (
        <Form
          form={form}
          layout="vertical"
          initialValues={{ param: '' }}
          onFinish={(values) => trigger.mutate(values)}
        >
          <Form.Item
            name="param"
            label={t('trigger.param')}
            extra={t('trigger.paramHint', { runParam: placeholder('run.param') })}
          >
            <Input.TextArea autoSize={{ minRows: 2, maxRows: 8 }} autoFocus spellCheck={false} />
          </Form.Item>
          {trigger.isError && <ApiErrorAlert error={trigger.error} />}
        </Form>
      ) : (
        <Alert
          type="success"
          showIcon
          role="status"
          data-testid="workflow-trigger-result"
          title={t('trigger.done')}
          description={<Link to={`/workflow-runs/${runId}`}>{t('trigger.runLink', { id: runId })}</Link>}
        />
      )}
    </Modal>
  );
}

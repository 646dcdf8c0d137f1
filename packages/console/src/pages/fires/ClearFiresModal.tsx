/**
 * "Clear old records" (`clearFires`): an app's or one job's finished records older than an age,
 * or all but the newest N. Asks once more before deleting, then shows how many the server deleted.
 */
import { useMutation } from '@tanstack/react-query';
import { Alert, App as AntApp, Form, Modal, Select, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { call, client } from '../../api/client';
import type { Body } from '../../api/types';
import { ApiErrorAlert } from '../../components/ApiErrorAlert';
import { JobSelect } from './JobSelect';
import { useApps } from './lookups';

const DAY_MS = 24 * 60 * 60 * 1000;

/** XXL-JOB's choices: by age, by count, or everything finished. */
const RANGES = {
  older30d: { days: 30 },
  older90d: { days: 90 },
  older180d: { days: 180 },
  older365d: { days: 365 },
  keep1000: { keepLast: 1_000 },
  keep10000: { keepLast: 10_000 },
  keep30000: { keepLast: 30_000 },
  keep100000: { keepLast: 100_000 },
  all: { keepLast: 0 },
} as const satisfies Record<string, { days: number } | { keepLast: number }>;
type RangeKey = keyof typeof RANGES;

interface ClearForm {
  appId?: number;
  jobId?: number;
  range?: RangeKey;
}

export function clearRequest(form: ClearForm, now: number): Body<'clearFires'> {
  const range = RANGES[form.range ?? 'older30d'];
  return {
    ...(form.appId === undefined ? {} : { appId: form.appId }),
    ...(form.jobId === undefined ? {} : { jobId: form.jobId }),
    ...('days' in range ? { before: now - range.days * DAY_MS } : { keepLast: range.keepLast }),
  };
}

/** Mounted while open: each opening starts from the list's filters of the moment, with no result. */
interface ClearFiresModalProps {
  appId: number | undefined;
  jobId: number | undefined;
  onClose(): void;
  onCleared(): void;
}

export function ClearFiresModal({ appId, jobId, onClose, onCleared }: ClearFiresModalProps) {
  const { t } = useTranslation('fires');
  const { modal } = AntApp.useApp();
  const [form] = Form.useForm<ClearForm>();
  const apps = useApps();
  const chosenApp = Form.useWatch('appId', form);
  const clear = useMutation({
    mutationFn: (body: Body<'clearFires'>) => call(client.POST('/api/v1/fires/clear', { body })),
    onSuccess: onCleared,
  });

  const submit = async () => {
    const values = await form.validateFields();
    modal.confirm({
      title: t('clear.confirm'),
      okText: t('clear.submit'),
      okButtonProps: { danger: true },
      cancelText: t('common:actions.cancel'),
      onOk: () => clear.mutateAsync(clearRequest(values, Date.now())).catch(() => undefined),
    });
  };

  const done = clear.data !== undefined;
  return (
    <Modal
      open
      title={t('clear.title')}
      onCancel={onClose}
      onOk={done ? onClose : submit}
      okText={done ? t('common:actions.close') : t('clear.submit')}
      okButtonProps={{ danger: !done, loading: clear.isPending }}
      cancelButtonProps={done ? { style: { display: 'none' } } : undefined}
      cancelText={t('common:actions.cancel')}
    >
      <Form<ClearForm>
        form={form}
        layout="vertical"
        disabled={done || clear.isPending}
        initialValues={{ appId, jobId, range: 'older30d' }}
      >
        <Form.Item
          name="appId"
          label={t('clear.app')}
          rules={[{ required: true, message: t('clear.appRequired') }]}
        >
          <Select
            options={(apps.data ?? []).map((app) => ({
              value: app.id,
              label: `${app.title} (${app.appName})`,
            }))}
            loading={apps.isLoading}
            showSearch={{ optionFilterProp: 'label' }}
            onChange={() => form.setFieldValue('jobId', undefined)}
          />
        </Form.Item>
        <Form.Item name="jobId" label={t('clear.job')} extra={t('clear.jobHint')}>
          <JobSelectField appId={chosenApp} />
        </Form.Item>
        <Form.Item name="range" label={t('clear.range')} rules={[{ required: true }]}>
          <Select
            options={(Object.keys(RANGES) as RangeKey[]).map((key) => ({
              value: key,
              label: t(`clear.ranges.${key}`),
            }))}
          />
        </Form.Item>
      </Form>
      <Typography.Paragraph type="secondary">{t('clear.inFlightKept')}</Typography.Paragraph>
      {clear.error !== null && <ApiErrorAlert error={clear.error} />}
      {clear.data !== undefined && (
        <Alert
          type="success"
          showIcon
          role="status"
          data-testid="clear-result"
          title={t('clear.done', { count: clear.data.deleted })}
        />
      )}
    </Modal>
  );
}

/** JobSelect as a form control (Form.Item passes value and onChange). */
function JobSelectField({
  appId,
  value,
  onChange,
  id,
}: {
  appId: number | undefined;
  value?: number;
  onChange?: (jobId: number | undefined) => void;
  id?: string;
}) {
  return <JobSelect appId={appId} value={value} onChange={(next) => onChange?.(next)} id={id} />;
}

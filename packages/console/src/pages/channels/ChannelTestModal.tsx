/** Sends a test alarm through a channel (`testAlarmChannel`) and shows whether it was taken. */
import { useMutation } from '@tanstack/react-query';
import { Alert, Button, Flex, Form, Input, Modal, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { call, client } from '../../api/client';
import type { AlarmChannel } from '../../api/types';
import { ApiErrorAlert } from '../../components/ApiErrorAlert';

export function ChannelTestModal({
  channel,
  onClose,
}: {
  channel: AlarmChannel | undefined;
  onClose(): void;
}) {
  const { t } = useTranslation('channels');
  const test = useMutation({
    mutationFn: ({ id, alarmEmail }: { id: number; alarmEmail: string }) =>
      call(
        client.POST('/api/v1/alarm-channels/{id}/test', {
          params: { path: { id } },
          body: alarmEmail.trim() === '' ? {} : { alarmEmail: alarmEmail.trim() },
        }),
      ),
  });

  const close = () => {
    test.reset();
    onClose();
  };

  return (
    <Modal
      open={channel !== undefined}
      title={t('testTitle', { name: channel?.name ?? '' })}
      onCancel={close}
      destroyOnHidden
      footer={<Button onClick={close}>{t('common:actions.close')}</Button>}
    >
      <Typography.Paragraph type="secondary">{t('testIntro')}</Typography.Paragraph>
      <Form<{ alarmEmail: string }>
        layout="vertical"
        initialValues={{ alarmEmail: '' }}
        onFinish={({ alarmEmail }) => {
          if (channel !== undefined) test.mutate({ id: channel.id, alarmEmail: alarmEmail ?? '' });
        }}
      >
        {channel?.type === 'EMAIL' && (
          <Form.Item name="alarmEmail" label={t('testEmail')} extra={t('testEmailHint')}>
            <Input autoComplete="email" />
          </Form.Item>
        )}
        <Flex vertical gap="middle">
          <Button
            type="primary"
            htmlType="submit"
            loading={test.isPending}
            style={{ alignSelf: 'flex-start' }}
          >
            {t('sendTest')}
          </Button>
          <div data-testid="channel-test-result" aria-live="polite">
            {test.error && <ApiErrorAlert error={test.error} />}
            {test.data?.sent === true && (
              <Alert type="success" showIcon title={t('testSent', { ms: test.data.durationMs })} />
            )}
            {test.data?.sent === false && (
              <Alert
                type="error"
                showIcon
                title={t('testFailed', { ms: test.data.durationMs })}
                description={test.data.error ?? ''}
              />
            )}
          </div>
        </Flex>
      </Form>
    </Modal>
  );
}

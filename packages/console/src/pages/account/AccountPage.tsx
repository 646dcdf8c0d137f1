/**
 * Change your own password: the current one, the new one twice. The server's reasons (a wrong
 * current password, too many tries) show on the field they are about; after the change the
 * other sessions are gone, which the page says.
 */
import { Alert, Button, Card, Form, Input } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { call, client } from '../../api/client';
import { ApiErrorAlert } from '../../components/ApiErrorAlert';
import { showFieldError } from '../../components/formErrors';
import { PageTitle } from '../../components/PageTitle';

interface PasswordValues {
  currentPassword: string;
  newPassword: string;
  confirmPassword: string;
}

export default function AccountPage() {
  const { t } = useTranslation('account');
  const [form] = Form.useForm<PasswordValues>();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const [changed, setChanged] = useState(false);

  const submit = async ({ currentPassword, newPassword }: PasswordValues) => {
    setBusy(true);
    setError(undefined);
    setChanged(false);
    try {
      await call(client.POST('/api/v1/me/password', { body: { currentPassword, newPassword } }));
      form.resetFields();
      setChanged(true);
    } catch (err) {
      if (!showFieldError(form, err)) setError(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <>
      <PageTitle title={t('title')} />
      <Card style={{ maxWidth: 480 }}>
        <Alert type="info" showIcon title={t('intro')} style={{ marginBottom: 16 }} />
        {changed && (
          <Alert
            type="success"
            showIcon
            role="status"
            title={t('changed')}
            description={t('changedDetail')}
            style={{ marginBottom: 16 }}
          />
        )}
        {error !== undefined && (
          <div style={{ marginBottom: 16 }}>
            <ApiErrorAlert error={error} />
          </div>
        )}
        <Form<PasswordValues> form={form} layout="vertical" onFinish={(values) => void submit(values)}>
          <Form.Item
            name="currentPassword"
            label={t('currentPassword')}
            rules={[{ required: true, message: t('currentRequired') }]}
          >
            <Input.Password autoComplete="current-password" />
          </Form.Item>
          <Form.Item
            name="newPassword"
            label={t('newPassword')}
            dependencies={['currentPassword']}
            rules={[
              { required: true, message: t('newRequired') },
              { min: 8, message: t('newLength') },
              ({ getFieldValue }) => ({
                validator: (_rule, value: string | undefined) =>
                  value && value === getFieldValue('currentPassword')
                    ? Promise.reject(new Error(t('newSame')))
                    : Promise.resolve(),
              }),
            ]}
          >
            <Input.Password autoComplete="new-password" />
          </Form.Item>
          <Form.Item
            name="confirmPassword"
            label={t('confirmPassword')}
            dependencies={['newPassword']}
            rules={[
              { required: true, message: t('confirmRequired') },
              ({ getFieldValue }) => ({
                validator: (_rule, value: string | undefined) =>
                  !value || value === getFieldValue('newPassword')
                    ? Promise.resolve()
                    : Promise.reject(new Error(t('confirmMismatch'))),
              }),
            ]}
          >
            <Input.Password autoComplete="new-password" />
          </Form.Item>
          <Button type="primary" htmlType="submit" loading={busy}>
            {t('submit')}
          </Button>
        </Form>
      </Card>
    </>
  );
}

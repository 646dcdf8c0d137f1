/**
 * The current password and the new one twice, sent to `changePassword`. The server's reasons (a
 * wrong current password, too many tries) show on the field they are about, else above the form.
 * Used by the change-password page and by the form a user who must change it sees first.
 */
import { Button, Form, Input } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { call, client } from '../../api/client';
import { ApiErrorAlert } from '../../components/ApiErrorAlert';
import { showFieldError } from '../../components/formErrors';

interface PasswordValues {
  currentPassword: string;
  newPassword: string;
  confirmPassword: string;
}

export function ChangePasswordForm({
  onChanged,
  onSubmit,
  block = false,
}: {
  /** After the server took the new password (awaited while the button spins). */
  onChanged(): void | Promise<void>;
  /** When the form is sent, before the answer. */
  onSubmit?(): void;
  /** The submit button the form's whole width. */
  block?: boolean;
}) {
  const { t } = useTranslation('account');
  const [form] = Form.useForm<PasswordValues>();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();

  const submit = async ({ currentPassword, newPassword }: PasswordValues) => {
    setBusy(true);
    setError(undefined);
    onSubmit?.();
    try {
      await call(client.POST('/api/v1/me/password', { body: { currentPassword, newPassword } }));
      form.resetFields();
      await onChanged();
    } catch (err) {
      if (!showFieldError(form, err)) setError(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <>
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
        <Button type="primary" htmlType="submit" loading={busy} block={block}>
          {t('submit')}
        </Button>
      </Form>
    </>
  );
}

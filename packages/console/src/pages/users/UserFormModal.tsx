/**
 * The form of a new user or of changes to one: role, the apps a USER may see, and a password
 * (required for a new user; for an existing one only when it is being reset, and then the user's
 * API tokens can be revoked with it), and whether the user must choose a password of their own
 * at their next sign-in.
 */
import { App as AntApp, Checkbox, Form, Input, Radio, Select } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { call, client } from '../../api/client';
import { FormModal } from '../../components/FormModal';
import { showFieldError } from '../../components/formErrors';
import { useAllApps } from '../../components/useAllApps';
import type { UserRow } from './UsersPage';

interface UserValues {
  username: string;
  password?: string;
  /** Editing only: revoke the user's API tokens with the save. */
  revokeApiTokens?: boolean;
  /** The user chooses a new password before anything else. */
  mustChangePassword: boolean;
  role: 'ADMIN' | 'USER';
  appIds: number[];
}

/** The server's rule for a username, checked here too so a typo is caught before a round trip. */
const USERNAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._@-]*$/;

export function UserFormModal({
  user,
  onClose,
  onSaved,
}: {
  /** 'new' for the create form; undefined while the dialog is closed. */
  user: UserRow | 'new' | undefined;
  onClose(): void;
  onSaved(): void;
}) {
  const { t } = useTranslation('users');
  const { message } = AntApp.useApp();
  const [form] = Form.useForm<UserValues>();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const { apps, isLoading: appsLoading } = useAllApps();
  const creating = user === 'new';
  const role = Form.useWatch('role', form);

  const close = () => {
    setError(undefined);
    onClose();
  };

  const save = async (values: UserValues) => {
    if (user === undefined) return;
    setBusy(true);
    setError(undefined);
    try {
      if (user === 'new') {
        await call(
          client.POST('/api/v1/users', {
            body: {
              username: values.username,
              password: values.password ?? '',
              role: values.role,
              appIds: values.role === 'USER' ? values.appIds : [],
              mustChangePassword: values.mustChangePassword,
            },
          }),
        );
        message.success(t('created', { username: values.username }));
      } else {
        const password =
          values.password === undefined || values.password === '' ? {} : { password: values.password };
        await call(
          client.PATCH('/api/v1/users/{id}', {
            params: { path: { id: user.id } },
            body: {
              role: values.role,
              ...password,
              ...(values.revokeApiTokens === true ? { revokeApiTokens: true } : {}),
              // Left out when unchanged: the server keeps it as it is.
              ...(values.mustChangePassword === user.mustChangePassword
                ? {}
                : { mustChangePassword: values.mustChangePassword }),
              ...(values.role === 'USER' ? { appIds: values.appIds } : {}),
            },
          }),
        );
        message.success(t('updated', { username: user.username }));
      }
      onSaved();
    } catch (err) {
      if (!showFieldError(form, err)) setError(err);
    } finally {
      setBusy(false);
    }
  };

  const initialValues: UserValues =
    user === undefined || user === 'new'
      ? { username: '', role: 'USER', appIds: [], mustChangePassword: false }
      : {
          username: user.username,
          role: user.role,
          appIds: user.appIds,
          mustChangePassword: user.mustChangePassword,
        };

  return (
    <FormModal<UserValues>
      open={user !== undefined}
      title={creating ? t('createTitle') : t('editTitle', { username: initialValues.username })}
      form={form}
      onFinish={(values) => void save(values)}
      onCancel={close}
      busy={busy}
      okText={t('common:actions.save')}
      error={error}
      initialValues={initialValues}
    >
      <Form.Item
        name="username"
        label={t('username')}
        rules={
          creating
            ? [
                { required: true, message: t('usernameRequired') },
                { pattern: USERNAME_PATTERN, message: t('usernameFormat') },
                { max: 64 },
              ]
            : []
        }
      >
        <Input autoComplete="off" disabled={!creating} autoFocus={creating} />
      </Form.Item>
      <Form.Item
        name="password"
        label={creating ? t('password') : t('newPassword')}
        extra={creating ? undefined : t('newPasswordHint')}
        rules={[
          ...(creating ? [{ required: true, message: t('passwordRequired') }] : []),
          { min: 8, message: t('passwordLength') },
        ]}
      >
        <Input.Password autoComplete="new-password" />
      </Form.Item>
      <Form.Item name="mustChangePassword" valuePropName="checked" extra={t('mustChangePasswordHint')}>
        <Checkbox>{t('mustChangePassword')}</Checkbox>
      </Form.Item>
      {!creating && (
        <Form.Item name="revokeApiTokens" valuePropName="checked" extra={t('revokeApiTokensHint')}>
          <Checkbox>{t('revokeApiTokens')}</Checkbox>
        </Form.Item>
      )}
      <Form.Item name="role" label={t('role')} extra={t('roleHint')}>
        <Radio.Group
          options={[
            { value: 'USER', label: t('roles.USER') },
            { value: 'ADMIN', label: t('roles.ADMIN') },
          ]}
        />
      </Form.Item>
      {role !== 'ADMIN' && (
        <Form.Item name="appIds" label={t('apps')} extra={t('appsHint')}>
          <Select
            mode="multiple"
            allowClear
            loading={appsLoading}
            placeholder={t('appsPlaceholder')}
            optionFilterProp="label"
            options={apps.map((app) => ({ value: app.id, label: `${app.appName} (${app.title})` }))}
          />
        </Form.Item>
      )}
    </FormModal>
  );
}

/**
 * Create or edit an app in a dialog: the app name (on create only: executors register with it),
 * the title, automatic or manual addresses, and for manual ones the address list, one per line.
 * On create, whether the app uses the installation-wide executor token (compatibility mode) instead
 * of one of its own, which the page then shows once. The server checks the addresses; its error
 * lands under the field it names.
 */
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { App as AntApp, Checkbox, Form, Input, Radio } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { call, client } from '../../api/client';
import type { App, AppWithToken } from '../../api/types';
import { FormModal } from '../../components/FormModal';
import { showFieldError } from '../../components/formErrors';

type AddressType = App['addressType'];

interface AppFormValues {
  appName: string;
  title: string;
  addressType: AddressType;
  /** The address list as typed, one address per line; named as the API names it, so its errors land here. */
  addressList: string;
  /** On create: the installation-wide executor token instead of one of the app's own. */
  useInstallationToken: boolean;
}

function splitLines(text: string | undefined): string[] {
  return (text ?? '')
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '');
}

const APP_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

export interface AppFormModalProps {
  /** The app to edit; undefined to create one. */
  app: App | undefined;
  onClose(): void;
  /** After a create: the new app with its executor token (null in compatibility mode). */
  onCreated?(app: AppWithToken): void;
}

/** Mount it to open it (and unmount to close), so each opening starts from the app's values. */
export function AppFormModal({ app, onClose, onCreated }: AppFormModalProps) {
  const { t } = useTranslation('apps');
  const { message } = AntApp.useApp();
  const queryClient = useQueryClient();
  const [form] = Form.useForm<AppFormValues>();
  const [formError, setFormError] = useState<unknown>();
  const addressType = Form.useWatch('addressType', form) ?? app?.addressType ?? 'AUTO';
  const editing = app !== undefined;

  const save = useMutation({
    mutationFn: async (values: AppFormValues): Promise<{ saved: App; created?: AppWithToken }> => {
      const addressList = values.addressType === 'MANUAL' ? splitLines(values.addressList) : [];
      if (app === undefined) {
        const created = await call(
          client.POST('/api/v1/apps', {
            body: {
              appName: values.appName.trim(),
              title: values.title,
              addressType: values.addressType,
              addressList,
              ...(values.useInstallationToken ? { useInstallationToken: true } : {}),
            },
          }),
        );
        return { saved: created, created };
      }
      const saved = await call(
        client.PATCH('/api/v1/apps/{id}', {
          params: { path: { id: app.id } },
          body: { title: values.title, addressType: values.addressType, addressList },
        }),
      );
      return { saved };
    },
    onSuccess: async ({ saved, created }) => {
      void message.success(editing ? t('common:states.saved') : t('created', { name: saved.appName }));
      await queryClient.invalidateQueries({ queryKey: ['apps'] });
      onClose();
      if (created !== undefined) onCreated?.(created);
    },
    onError: (err) => setFormError(showFieldError(form, err) ? undefined : err),
  });

  return (
    <FormModal<AppFormValues>
      open
      form={form}
      title={editing ? t('editTitle', { name: app.appName }) : t('createTitle')}
      okText={t('common:actions.save')}
      busy={save.isPending}
      error={formError}
      onCancel={onClose}
      onFinish={(values) => {
        setFormError(undefined);
        save.mutate(values);
      }}
      initialValues={{
        appName: app?.appName ?? '',
        title: app?.title ?? '',
        addressType: app?.addressType ?? 'AUTO',
        addressList: app?.addressType === 'MANUAL' ? app.addressList.join('\n') : '',
        useInstallationToken: false,
      }}
    >
      <Form.Item
        name="appName"
        label={t('appName')}
        extra={editing ? undefined : t('appNameHelp')}
        rules={[
          { required: true, whitespace: true, message: t('appNameRequired') },
          { pattern: APP_NAME_PATTERN, message: t('appNamePattern') },
        ]}
      >
        <Input disabled={editing} autoComplete="off" autoFocus={!editing} maxLength={64} />
      </Form.Item>
      <Form.Item
        name="title"
        label={t('appTitle')}
        rules={[{ required: true, whitespace: true, message: t('titleRequired') }]}
      >
        <Input autoComplete="off" autoFocus={editing} maxLength={128} />
      </Form.Item>
      <Form.Item name="addressType" label={t('addressType')} extra={t(`addressTypeHelp.${addressType}`)}>
        <Radio.Group
          options={(['AUTO', 'MANUAL'] as const).map((type) => ({
            value: type,
            label: t(`addressTypes.${type}`),
          }))}
        />
      </Form.Item>
      {addressType === 'MANUAL' && (
        <Form.Item
          name="addressList"
          label={t('addressList')}
          extra={t('addressListHelp')}
          rules={[
            {
              validator: async (_, value: string | undefined) => {
                if (splitLines(value).length === 0) throw new Error(t('addressListRequired'));
              },
            },
          ]}
        >
          <Input.TextArea
            autoSize={{ minRows: 3, maxRows: 10 }}
            placeholder="http://10.0.0.5:9999/"
            spellCheck={false}
          />
        </Form.Item>
      )}
      {!editing && (
        <Form.Item name="useInstallationToken" valuePropName="checked" extra={t('useInstallationTokenHelp')}>
          <Checkbox>{t('useInstallationToken')}</Checkbox>
        </Form.Item>
      )}
    </FormModal>
  );
}

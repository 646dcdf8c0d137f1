/**
 * The form of a new alarm channel or of changes to one, with the settings of its type. A
 * stored secret shows as an empty input ("leave empty to keep"), and an update sends only
 * what changed (channel-config.ts), so the masked values of an answer never overwrite
 * stored ones.
 */
import { App as AntApp, Checkbox, Form, Input, InputNumber, Select, Switch } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { call, client } from '../../api/client';
import type { AlarmChannel } from '../../api/types';
import { FormModal } from '../../components/FormModal';
import { showFieldError } from '../../components/formErrors';
import {
  CHANNEL_TYPES,
  type ChannelType,
  type ChannelValues,
  CONFIG_FIELDS,
  type ConfigField,
  channelValues,
  configChanges,
  configToCreate,
  hasStoredSecret,
  MASK,
  newChannelValues,
} from './channel-config';

const URL_PATTERN = /^https?:\/\/\S+$/;

export function ChannelFormModal({
  channel,
  onClose,
  onSaved,
}: {
  /** 'new' for the create form; undefined while the dialog is closed. */
  channel: AlarmChannel | 'new' | undefined;
  onClose(): void;
  onSaved(): void;
}) {
  const { t } = useTranslation('channels');
  const { message } = AntApp.useApp();
  const [form] = Form.useForm<ChannelValues>();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const existing = channel === 'new' ? undefined : channel;
  const initialValues = existing === undefined ? newChannelValues('WEBHOOK') : channelValues(existing);
  const type: ChannelType = Form.useWatch('type', form) ?? initialValues.type;

  const save = async (values: ChannelValues) => {
    setBusy(true);
    setError(undefined);
    try {
      if (existing === undefined) {
        await call(
          client.POST('/api/v1/alarm-channels', {
            body: {
              name: values.name.trim(),
              type: values.type,
              enabled: values.enabled,
              config: configToCreate(values.type, values.config ?? {}),
            },
          }),
        );
        message.success(t('created', { name: values.name.trim() }));
      } else {
        await call(
          client.PATCH('/api/v1/alarm-channels/{id}', {
            params: { path: { id: existing.id } },
            body: {
              name: values.name.trim(),
              enabled: values.enabled,
              config: configChanges(existing, values.config ?? {}, values.clear),
            },
          }),
        );
        message.success(t('updated', { name: values.name.trim() }));
      }
      onSaved();
    } catch (err) {
      if (!showFieldError(form, err)) setError(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <FormModal<ChannelValues>
      open={channel !== undefined}
      title={existing === undefined ? t('createTitle') : t('editTitle', { name: existing.name })}
      form={form}
      onFinish={(values) => void save(values)}
      onCancel={() => {
        setError(undefined);
        onClose();
      }}
      busy={busy}
      okText={t('common:actions.save')}
      error={error}
      initialValues={initialValues}
    >
      <Form.Item
        name="name"
        label={t('name')}
        rules={[{ required: true, whitespace: true, message: t('nameRequired') }, { max: 128 }]}
      >
        <Input autoComplete="off" autoFocus />
      </Form.Item>
      <Form.Item name="type" label={t('type')} extra={existing === undefined ? undefined : t('typeFixed')}>
        <Select
          disabled={existing !== undefined}
          options={CHANNEL_TYPES.map((value) => ({ value, label: t(`types.${value}`) }))}
          onChange={(next: ChannelType) => form.setFieldValue('config', newChannelValues(next).config)}
        />
      </Form.Item>
      <Form.Item name="enabled" label={t('enabled')} valuePropName="checked">
        <Switch />
      </Form.Item>
      {CONFIG_FIELDS[type].map((field) => (
        <ConfigFormItem key={`${type}.${field.key}`} field={field} channel={existing} />
      ))}
    </FormModal>
  );
}

function ConfigFormItem({ field, channel }: { field: ConfigField; channel: AlarmChannel | undefined }) {
  const { t } = useTranslation('channels');
  const name = ['config', field.key];
  const label = t(`config.${field.key}`);
  const required =
    field.required === true ? [{ required: true, whitespace: true, message: t('required') }] : [];
  const hint = field.hint === undefined ? undefined : t(field.hint);

  switch (field.kind) {
    case 'text':
      return (
        <Form.Item name={name} label={label} extra={hint} rules={required}>
          <Input autoComplete="off" />
        </Form.Item>
      );
    case 'url': {
      const masked =
        typeof channel?.config[field.key] === 'string' && String(channel.config[field.key]).includes(MASK);
      return (
        <Form.Item
          name={name}
          label={label}
          extra={masked ? t('maskedUrl') : hint}
          rules={[...required, { pattern: URL_PATTERN, message: t('urlInvalid') }]}
        >
          <Input autoComplete="off" inputMode="url" placeholder="https://" />
        </Form.Item>
      );
    }
    case 'secret': {
      const stored = hasStoredSecret(channel, field.key);
      return (
        <>
          <Form.Item
            name={name}
            label={label}
            extra={hint}
            rules={[{ max: field.key === 'password' ? 1024 : 512 }]}
          >
            <Input.Password
              autoComplete="new-password"
              placeholder={stored ? t('secretStored') : channel === undefined ? undefined : t('secretNone')}
            />
          </Form.Item>
          {stored && (
            <Form.Item name={['clear', field.key]} valuePropName="checked" style={{ marginTop: -16 }}>
              <Checkbox>{t('removeSecret')}</Checkbox>
            </Form.Item>
          )}
        </>
      );
    }
    case 'port':
      return (
        <Form.Item name={name} label={label} extra={hint}>
          <InputNumber min={1} max={65535} precision={0} style={{ width: '100%' }} />
        </Form.Item>
      );
    case 'select':
      return (
        <Form.Item name={name} label={label} extra={hint}>
          <Select
            options={(field.options ?? []).map((value) => ({
              value,
              label: field.key === 'security' ? t(`config.securities.${value}`) : value,
            }))}
          />
        </Form.Item>
      );
    case 'tags':
      return (
        <Form.Item name={name} label={label} extra={hint ?? t('listHint')}>
          <Select mode="tags" tokenSeparators={[',', ' ', ';']} open={false} suffixIcon={null} />
        </Form.Item>
      );
    case 'switch':
      return (
        <Form.Item name={name} label={label} extra={hint} valuePropName="checked">
          <Switch />
        </Form.Item>
      );
  }
}

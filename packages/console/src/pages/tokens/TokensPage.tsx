/**
 * The signed-in user's own API tokens: names and dates, a new one (its value shown once, in a
 * dialog with a copy button), revoke.
 */
import { DeleteOutlined, PlusOutlined } from '@ant-design/icons';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  Alert,
  App as AntApp,
  Button,
  Form,
  Input,
  Modal,
  Popconfirm,
  Table,
  type TableColumnsType,
  Typography,
} from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { call, client } from '../../api/client';
import type { ApiToken, Ok } from '../../api/types';
import { ApiErrorAlert, errorText } from '../../components/ApiErrorAlert';
import { FormModal } from '../../components/FormModal';
import { showFieldError } from '../../components/formErrors';
import { PageTitle } from '../../components/PageTitle';
import { Time } from '../../components/Time';

/** Times stay on one line; the table scrolls sideways on a narrow screen instead. */
const nowrap = () => ({ style: { whiteSpace: 'nowrap' } }) as const;

type CreatedToken = Ok<'createApiToken'>;

export default function TokensPage() {
  const { t } = useTranslation('tokens');
  const { message } = AntApp.useApp();
  const queryClient = useQueryClient();
  const [creating, setCreating] = useState(false);
  const [created, setCreated] = useState<CreatedToken | undefined>();

  const tokens = useQuery({
    queryKey: ['tokens'],
    queryFn: () => call(client.GET('/api/v1/tokens')),
  });

  const revoke = useMutation({
    mutationFn: (token: ApiToken) =>
      call(client.DELETE('/api/v1/tokens/{id}', { params: { path: { id: token.id } } })),
    onSuccess: (_data, token) => {
      message.success(t('revoked', { name: token.name }));
      void queryClient.invalidateQueries({ queryKey: ['tokens'] });
    },
    onError: (err) => message.error(errorText(err, t)),
  });

  const columns: TableColumnsType<ApiToken> = [
    { title: t('name'), dataIndex: 'name' },
    {
      title: t('createdAt'),
      dataIndex: 'createdAt',
      onCell: nowrap,
      render: (at: number) => <Time value={at} />,
    },
    {
      title: t('lastUsedAt'),
      dataIndex: 'lastUsedAt',
      onCell: nowrap,
      render: (at: number | null) => (at === null ? t('never') : <Time value={at} />),
    },
    {
      title: t('actions'),
      key: 'actions',
      render: (_: unknown, token) => (
        <Popconfirm
          title={t('confirmRevoke', { name: token.name })}
          okText={t('revoke')}
          cancelText={t('common:actions.cancel')}
          okButtonProps={{ danger: true }}
          onConfirm={() => revoke.mutateAsync(token).catch(() => undefined)}
        >
          <Button size="small" danger icon={<DeleteOutlined />} aria-label={`${t('revoke')} ${token.name}`}>
            {t('revoke')}
          </Button>
        </Popconfirm>
      ),
    },
  ];

  return (
    <>
      <PageTitle
        title={t('title')}
        extra={
          <Button type="primary" icon={<PlusOutlined />} onClick={() => setCreating(true)}>
            {t('create')}
          </Button>
        }
      />
      <Typography.Paragraph type="secondary">{t('intro')}</Typography.Paragraph>
      {tokens.error ? (
        <ApiErrorAlert error={tokens.error} onRetry={() => void tokens.refetch()} />
      ) : (
        <Table<ApiToken>
          rowKey="id"
          columns={columns}
          dataSource={tokens.data?.items}
          loading={tokens.isLoading}
          scroll={{ x: true }}
          locale={{ emptyText: t('common:states.empty') }}
          pagination={false}
        />
      )}
      <NewTokenModal
        open={creating}
        onClose={() => setCreating(false)}
        onCreated={(token) => {
          setCreating(false);
          setCreated(token);
          void queryClient.invalidateQueries({ queryKey: ['tokens'] });
        }}
      />
      <Modal
        open={created !== undefined}
        title={t('createdTitle', { name: created?.name ?? '' })}
        closable={false}
        maskClosable={false}
        keyboard={false}
        destroyOnHidden
        footer={
          <Button type="primary" onClick={() => setCreated(undefined)}>
            {t('done')}
          </Button>
        }
      >
        <Alert type="warning" showIcon title={t('shownOnce')} style={{ marginBottom: 16 }} />
        <Typography.Paragraph
          code
          data-testid="new-token"
          copyable={{
            text: created?.token ?? '',
            tooltips: [t('common:actions.copy'), t('copied')],
          }}
          style={{ wordBreak: 'break-all' }}
        >
          {created?.token}
        </Typography.Paragraph>
      </Modal>
    </>
  );
}

function NewTokenModal({
  open,
  onClose,
  onCreated,
}: {
  open: boolean;
  onClose(): void;
  onCreated(token: CreatedToken): void;
}) {
  const { t } = useTranslation('tokens');
  const [form] = Form.useForm<{ name: string }>();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();

  const create = async ({ name }: { name: string }) => {
    setBusy(true);
    setError(undefined);
    try {
      onCreated(await call(client.POST('/api/v1/tokens', { body: { name: name.trim() } })));
    } catch (err) {
      if (!showFieldError(form, err)) setError(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <FormModal<{ name: string }>
      open={open}
      title={t('createTitle')}
      form={form}
      onFinish={(values) => void create(values)}
      onCancel={() => {
        setError(undefined);
        onClose();
      }}
      busy={busy}
      okText={t('common:actions.create')}
      error={error}
    >
      <Form.Item
        name="name"
        label={t('name')}
        extra={t('nameHint')}
        rules={[{ required: true, whitespace: true, message: t('nameRequired') }, { max: 128 }]}
      >
        <Input autoComplete="off" autoFocus />
      </Form.Item>
    </FormModal>
  );
}

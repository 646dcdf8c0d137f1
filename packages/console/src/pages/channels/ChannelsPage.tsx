/**
 * Alarm channels (admin): e-mail, webhook and the DingTalk, WeCom and Feishu robots. List,
 * create, edit, test and delete; secrets are never shown (the server masks them).
 */
import { DeleteOutlined, EditOutlined, PlusOutlined, SendOutlined } from '@ant-design/icons';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { App as AntApp, Button, Flex, Popconfirm, Table, type TableColumnsType, Tag, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { call, client } from '../../api/client';
import type { AlarmChannel } from '../../api/types';
import { ApiErrorAlert, errorText } from '../../components/ApiErrorAlert';
import { PageTitle } from '../../components/PageTitle';
import { Time } from '../../components/Time';
import { ChannelFormModal } from './ChannelFormModal';
import { ChannelTestModal } from './ChannelTestModal';
import { channelTarget, isChannelType } from './channel-config';

/** Times stay on one line; the table scrolls sideways on a narrow screen instead. */
const nowrap = () => ({ style: { whiteSpace: 'nowrap' } }) as const;

const PAGE_SIZE = 20;

export default function ChannelsPage() {
  const { t } = useTranslation('channels');
  const { message } = AntApp.useApp();
  const queryClient = useQueryClient();
  const [page, setPage] = useState(1);
  const [editing, setEditing] = useState<AlarmChannel | 'new' | undefined>();
  const [testing, setTesting] = useState<AlarmChannel | undefined>();

  const channels = useQuery({
    queryKey: ['alarm-channels', page],
    queryFn: () =>
      call(
        client.GET('/api/v1/alarm-channels', {
          params: { query: { limit: PAGE_SIZE, offset: (page - 1) * PAGE_SIZE } },
        }),
      ),
  });

  const remove = useMutation({
    mutationFn: (channel: AlarmChannel) =>
      call(client.DELETE('/api/v1/alarm-channels/{id}', { params: { path: { id: channel.id } } })),
    onSuccess: (_data, channel) => {
      message.success(t('deleted', { name: channel.name }));
      void queryClient.invalidateQueries({ queryKey: ['alarm-channels'] });
    },
    // A channel jobs still use is refused with their ids: the reason says what to do.
    onError: (err) => message.error(errorText(err, t), 8),
  });

  const columns: TableColumnsType<AlarmChannel> = [
    { title: t('name'), dataIndex: 'name' },
    {
      title: t('type'),
      dataIndex: 'type',
      render: (type: string) => <Tag>{isChannelType(type) ? t(`types.${type}`) : type}</Tag>,
    },
    {
      title: t('enabled'),
      dataIndex: 'enabled',
      render: (enabled: boolean) =>
        enabled ? <Tag color="green">{t('enabled')}</Tag> : <Tag>{t('disabled')}</Tag>,
    },
    {
      title: t('target'),
      key: 'target',
      render: (_: unknown, channel) => (
        <Typography.Text style={{ wordBreak: 'break-all' }}>{channelTarget(channel)}</Typography.Text>
      ),
    },
    {
      title: t('updatedAt'),
      dataIndex: 'updatedAt',
      onCell: nowrap,
      render: (at: number) => <Time value={at} />,
    },
    {
      title: t('actions'),
      key: 'actions',
      render: (_: unknown, channel) => (
        <Flex gap="small">
          <Button
            size="small"
            icon={<SendOutlined />}
            onClick={() => setTesting(channel)}
            aria-label={`${t('test')} ${channel.name}`}
          >
            {t('test')}
          </Button>
          <Button
            size="small"
            icon={<EditOutlined />}
            onClick={() => setEditing(channel)}
            aria-label={`${t('common:actions.edit')} ${channel.name}`}
          >
            {t('common:actions.edit')}
          </Button>
          <Popconfirm
            title={t('common:confirmDelete', { name: channel.name })}
            okText={t('common:actions.delete')}
            cancelText={t('common:actions.cancel')}
            okButtonProps={{ danger: true }}
            onConfirm={() => remove.mutateAsync(channel).catch(() => undefined)}
          >
            <Button
              size="small"
              danger
              icon={<DeleteOutlined />}
              aria-label={`${t('common:actions.delete')} ${channel.name}`}
            >
              {t('common:actions.delete')}
            </Button>
          </Popconfirm>
        </Flex>
      ),
    },
  ];

  return (
    <>
      <PageTitle
        title={t('title')}
        extra={
          <Button type="primary" icon={<PlusOutlined />} onClick={() => setEditing('new')}>
            {t('create')}
          </Button>
        }
      />
      <Typography.Paragraph type="secondary">{t('intro')}</Typography.Paragraph>
      {channels.error ? (
        <ApiErrorAlert error={channels.error} onRetry={() => void channels.refetch()} />
      ) : (
        <Table<AlarmChannel>
          rowKey="id"
          columns={columns}
          dataSource={channels.data?.items}
          loading={channels.isLoading}
          scroll={{ x: true }}
          locale={{ emptyText: t('common:states.empty') }}
          pagination={{
            current: page,
            pageSize: PAGE_SIZE,
            total: channels.data?.total ?? 0,
            showSizeChanger: false,
            hideOnSinglePage: true,
            showTotal: (count) => t('common:total', { count }),
            onChange: setPage,
          }}
        />
      )}
      <ChannelFormModal
        channel={editing}
        onClose={() => setEditing(undefined)}
        onSaved={() => {
          setEditing(undefined);
          void queryClient.invalidateQueries({ queryKey: ['alarm-channels'] });
        }}
      />
      <ChannelTestModal channel={testing} onClose={() => setTesting(undefined)} />
    </>
  );
}

/**
 * Users (admin): who may sign in, their role and, for a USER, the apps they may see and
 * operate, and who must still choose a password of their own. Create, edit (role, apps, a new
 * password, whether it must change) and delete — never yourself.
 */
import { DeleteOutlined, EditOutlined, PlusOutlined } from '@ant-design/icons';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { App as AntApp, Button, Flex, Popconfirm, Table, type TableColumnsType, Tag, Tooltip } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { call, client } from '../../api/client';
import type { Ok } from '../../api/types';
import { useAuth } from '../../auth/AuthContext';
import { ApiErrorAlert, errorText } from '../../components/ApiErrorAlert';
import { PageTitle } from '../../components/PageTitle';
import { Time } from '../../components/Time';
import { useAllApps } from '../../components/useAllApps';
import { UserFormModal } from './UserFormModal';

/** Times stay on one line; the table scrolls sideways on a narrow screen instead. */
const nowrap = () => ({ style: { whiteSpace: 'nowrap' } }) as const;

export type UserRow = Ok<'listUsers'>['items'][number];

const PAGE_SIZE = 20;

export default function UsersPage() {
  const { t } = useTranslation('users');
  const { user: me } = useAuth();
  const { message } = AntApp.useApp();
  const queryClient = useQueryClient();
  const [page, setPage] = useState(1);
  const [editing, setEditing] = useState<UserRow | 'new' | undefined>();
  const { byId: appsById } = useAllApps();

  const users = useQuery({
    queryKey: ['users', page],
    queryFn: () =>
      call(
        client.GET('/api/v1/users', {
          params: { query: { limit: PAGE_SIZE, offset: (page - 1) * PAGE_SIZE } },
        }),
      ),
  });

  const remove = useMutation({
    mutationFn: (user: UserRow) =>
      call(client.DELETE('/api/v1/users/{id}', { params: { path: { id: user.id } } })),
    onSuccess: (_data, user) => {
      message.success(t('deleted', { username: user.username }));
      void queryClient.invalidateQueries({ queryKey: ['users'] });
    },
    onError: (err) => message.error(errorText(err, t)),
  });

  const columns: TableColumnsType<UserRow> = [
    {
      title: t('username'),
      dataIndex: 'username',
      render: (username: string, user) => (
        <Flex gap="small" align="center" wrap>
          <span>{username}</span>
          {user.id === me?.id && <Tag>{t('you')}</Tag>}
          {user.mustChangePassword && (
            <Tooltip title={t('mustChangePasswordTagHint')}>
              <Tag color="orange" data-testid={`must-change-password-${user.id}`}>
                {t('mustChangePasswordTag')}
              </Tag>
            </Tooltip>
          )}
        </Flex>
      ),
    },
    {
      title: t('role'),
      dataIndex: 'role',
      render: (role: UserRow['role']) => (
        <Tag color={role === 'ADMIN' ? 'gold' : 'blue'}>{t(`roles.${role}`)}</Tag>
      ),
    },
    {
      title: t('apps'),
      key: 'apps',
      render: (_: unknown, user) =>
        user.role === 'ADMIN' ? (
          <span>{t('allApps')}</span>
        ) : user.appIds.length === 0 ? (
          <span>{t('noApps')}</span>
        ) : (
          <Flex gap={4} wrap>
            {user.appIds.map((appId) => (
              <Tag key={appId}>{appsById.get(appId)?.appName ?? `#${appId}`}</Tag>
            ))}
          </Flex>
        ),
    },
    {
      title: t('createdAt'),
      dataIndex: 'createdAt',
      onCell: nowrap,
      render: (at: number) => <Time value={at} />,
    },
    {
      title: t('actions'),
      key: 'actions',
      render: (_: unknown, user) => {
        const self = user.id === me?.id;
        return (
          <Flex gap="small">
            {self ? (
              // Another administrator changes or deletes you; your password is on the account page.
              <Tooltip title={t('selfHint')}>
                <Flex gap="small">
                  <Button size="small" icon={<EditOutlined />} disabled>
                    {t('common:actions.edit')}
                  </Button>
                  <Button size="small" danger icon={<DeleteOutlined />} disabled>
                    {t('common:actions.delete')}
                  </Button>
                </Flex>
              </Tooltip>
            ) : (
              <>
                <Button
                  size="small"
                  icon={<EditOutlined />}
                  onClick={() => setEditing(user)}
                  aria-label={`${t('common:actions.edit')} ${user.username}`}
                >
                  {t('common:actions.edit')}
                </Button>
                <Popconfirm
                  title={t('common:confirmDelete', { name: user.username })}
                  okText={t('common:actions.delete')}
                  cancelText={t('common:actions.cancel')}
                  okButtonProps={{ danger: true }}
                  onConfirm={() => remove.mutateAsync(user).catch(() => undefined)}
                >
                  <Button
                    size="small"
                    danger
                    icon={<DeleteOutlined />}
                    aria-label={`${t('common:actions.delete')} ${user.username}`}
                  >
                    {t('common:actions.delete')}
                  </Button>
                </Popconfirm>
              </>
            )}
          </Flex>
        );
      },
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
      {users.error ? (
        <ApiErrorAlert error={users.error} onRetry={() => void users.refetch()} />
      ) : (
        <Table<UserRow>
          rowKey="id"
          columns={columns}
          dataSource={users.data?.items}
          loading={users.isLoading}
          scroll={{ x: true }}
          locale={{ emptyText: t('common:states.empty') }}
          pagination={{
            current: page,
            pageSize: PAGE_SIZE,
            total: users.data?.total ?? 0,
            showSizeChanger: false,
            showTotal: (count) => t('common:total', { count }),
            onChange: setPage,
          }}
        />
      )}
      <UserFormModal
        user={editing}
        onClose={() => setEditing(undefined)}
        onSaved={() => {
          setEditing(undefined);
          void queryClient.invalidateQueries({ queryKey: ['users'] });
        }}
      />
    </>
  );
}

/**
 * Apps: the list (name, title, address type, executors online) with a name filter and paging
 * kept in the address bar, each row opening onto its online executors, and which executor token
 * each app uses (its own, or the installation-wide one in compatibility mode, with a warning while
 * any app does). Admins create, edit, delete apps and rotate their tokens (the new token shown
 * once); everyone else sees the same list without those actions.
 */
import { DeleteOutlined, EditOutlined, KeyOutlined, PlusOutlined } from '@ant-design/icons';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  Alert,
  App as AntApp,
  Badge,
  Button,
  Flex,
  Input,
  Popconfirm,
  Table,
  Tag,
  Tooltip,
  Typography,
} from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router-dom';
import { call, client } from '../../api/client';
import type { App, AppWithToken } from '../../api/types';
import { useAuth } from '../../auth/AuthContext';
import { ApiErrorAlert, errorText } from '../../components/ApiErrorAlert';
import { PageTitle } from '../../components/PageTitle';
import { formatTime } from '../../components/Time';
import { AppExecutors } from './AppExecutors';
import { AppFormModal } from './AppFormModal';
import { AppTokenModal, type ShownToken } from './AppTokenModal';
import { InstallationTokenNotice } from './InstallationTokenNotice';
import { RotateTokenModal } from './RotateTokenModal';

const REFRESH_MS = 10_000;
const PAGE_SIZES = [10, 20, 50, 100];
const DEFAULT_PAGE_SIZE = 20;

/** What the form modal is doing: nothing, creating, or editing one app. */
type Editor = { app: App | undefined } | undefined;

function positiveInt(text: string | null, fallback: number): number {
  const n = Number(text);
  return Number.isInteger(n) && n > 0 ? n : fallback;
}

/**
 * Which executor token the app uses, while a rotation overlaps until when the old one works, and
 * for admins the button that rotates it (under what it changes, so the table keeps its width).
 */
function Credential({ app, onRotate }: { app: App; onRotate: (() => void) | undefined }) {
  const { t } = useTranslation('apps');
  return (
    <Flex vertical gap={2} align="flex-start">
      <Tooltip title={t(`credentialHelp.${app.credential}`)}>
        <Tag
          data-testid={`credential-${app.appName}`}
          color={app.credential === 'installation' ? 'warning' : 'green'}
        >
          {t(`credentials.${app.credential}`)}
        </Tag>
      </Tooltip>
      {app.previousTokenValidUntil !== null && (
        <Typography.Text
          type="secondary"
          data-testid={`previous-token-${app.appName}`}
          style={{ whiteSpace: 'nowrap', fontSize: 12 }}
        >
          {t('previousValidUntil', { time: formatTime(app.previousTokenValidUntil) })}
        </Typography.Text>
      )}
      {onRotate !== undefined && (
        <Button
          size="small"
          type="link"
          icon={<KeyOutlined />}
          aria-label={`${t('rotate')} ${app.appName}`}
          style={{ paddingInline: 0 }}
          onClick={onRotate}
        >
          {t('rotate')}
        </Button>
      )}
    </Flex>
  );
}

function shownToken(app: AppWithToken): ShownToken | undefined {
  if (app.accessToken === null) return undefined;
  return {
    appName: app.appName,
    accessToken: app.accessToken,
    previousTokenValidUntil: app.previousTokenValidUntil,
  };
}

export default function AppsPage() {
  const { t } = useTranslation('apps');
  const { isAdmin } = useAuth();
  const { message } = AntApp.useApp();
  const queryClient = useQueryClient();
  const [params, setParams] = useSearchParams();
  const [editor, setEditor] = useState<Editor>();
  const [rotating, setRotating] = useState<App | undefined>();
  const [token, setToken] = useState<ShownToken | undefined>();
  const name = params.get('name') ?? '';
  const page = positiveInt(params.get('page'), 1);
  const pageSize = positiveInt(params.get('size'), DEFAULT_PAGE_SIZE);

  const query = useQuery({
    queryKey: ['apps', 'list', { name, page, pageSize }],
    queryFn: () =>
      call(
        client.GET('/api/v1/apps', {
          params: {
            query: {
              ...(name === '' ? {} : { appName: name }),
              limit: pageSize,
              offset: (page - 1) * pageSize,
            },
          },
        }),
      ),
    refetchInterval: REFRESH_MS,
    placeholderData: keepPreviousData,
  });

  const remove = useMutation({
    mutationFn: (app: App) => call(client.DELETE('/api/v1/apps/{id}', { params: { path: { id: app.id } } })),
    onSuccess: async () => {
      void message.success(t('common:states.deleted'));
      await queryClient.invalidateQueries({ queryKey: ['apps'] });
    },
    onError: (err, app) => {
      void message.error(`${t('deleteFailed', { name: app.appName })}: ${errorText(err, t)}`);
    },
  });

  const setQuery = (changes: Record<string, string | undefined>) => {
    const next = new URLSearchParams(params);
    for (const [key, value] of Object.entries(changes)) {
      if (value === undefined || value === '') next.delete(key);
      else next.set(key, value);
    }
    setParams(next, { replace: true });
  };

  return (
    <>
      <PageTitle
        title={t('title')}
        extra={
          isAdmin && (
            <Button type="primary" icon={<PlusOutlined />} onClick={() => setEditor({ app: undefined })}>
              {t('create')}
            </Button>
          )
        }
      />
      <Flex vertical gap="middle">
        {!isAdmin && <Alert type="info" showIcon title={t('readOnly')} />}
        <InstallationTokenNotice />
        <Input.Search
          aria-label={t('filterName')}
          placeholder={t('filterName')}
          defaultValue={name}
          allowClear
          enterButton={t('common:actions.search')}
          style={{ maxWidth: 420 }}
          onSearch={(value) => setQuery({ name: value.trim(), page: undefined })}
        />
        {query.isError && <ApiErrorAlert error={query.error} onRetry={() => void query.refetch()} />}
        <Table<App>
          rowKey="id"
          data-testid="apps-table"
          loading={query.isPending}
          dataSource={query.data?.items ?? []}
          scroll={{ x: true }}
          expandable={{ expandedRowRender: (app) => <AppExecutors app={app} /> }}
          pagination={{
            current: page,
            pageSize,
            total: query.data?.total ?? 0,
            pageSizeOptions: PAGE_SIZES,
            showSizeChanger: true,
            showTotal: (total) => t('common:total', { count: total }),
            onChange: (nextPage, nextSize) =>
              setQuery({
                page: nextPage === 1 ? undefined : String(nextPage),
                size: nextSize === DEFAULT_PAGE_SIZE ? undefined : String(nextSize),
              }),
          }}
          columns={[
            {
              key: 'appName',
              title: t('appName'),
              render: (_, app) => (
                <Typography.Text strong style={{ whiteSpace: 'nowrap' }}>
                  {app.appName}
                </Typography.Text>
              ),
            },
            { key: 'title', title: t('appTitle'), dataIndex: 'title' },
            {
              key: 'addressType',
              title: t('addressType'),
              render: (_, app) => (
                <Tag color={app.addressType === 'AUTO' ? 'blue' : 'gold'}>
                  {t(`addressTypes.${app.addressType}`)}
                </Tag>
              ),
            },
            {
              key: 'credential',
              title: t('credential'),
              render: (_, app) => (
                <Credential app={app} onRotate={isAdmin ? () => setRotating(app) : undefined} />
              ),
            },
            {
              key: 'online',
              title: t('online'),
              render: (_, app) => (
                <Badge
                  status={app.onlineAddresses.length > 0 ? 'success' : 'default'}
                  text={<span data-testid={`online-${app.appName}`}>{app.onlineAddresses.length}</span>}
                />
              ),
            },
            ...(isAdmin
              ? [
                  {
                    key: 'actions',
                    title: t('actions'),
                    render: (_: unknown, app: App) => (
                      <Flex gap="small" wrap={false}>
                        <Button
                          size="small"
                          icon={<EditOutlined />}
                          aria-label={`${t('common:actions.edit')} ${app.appName}`}
                          onClick={() => setEditor({ app })}
                        >
                          {t('common:actions.edit')}
                        </Button>
                        <Popconfirm
                          title={t('common:confirmDelete', { name: app.appName })}
                          okText={t('common:actions.delete')}
                          cancelText={t('common:actions.cancel')}
                          okButtonProps={{ danger: true }}
                          onConfirm={() => remove.mutateAsync(app).catch(() => undefined)}
                        >
                          <Button
                            size="small"
                            danger
                            icon={<DeleteOutlined />}
                            aria-label={`${t('common:actions.delete')} ${app.appName}`}
                          >
                            {t('common:actions.delete')}
                          </Button>
                        </Popconfirm>
                      </Flex>
                    ),
                  },
                ]
              : []),
          ]}
        />
      </Flex>
      {editor !== undefined && (
        <AppFormModal
          app={editor.app}
          onClose={() => setEditor(undefined)}
          onCreated={(created) => setToken(shownToken(created))}
        />
      )}
      {rotating !== undefined && (
        <RotateTokenModal
          app={rotating}
          onClose={() => setRotating(undefined)}
          onRotated={(rotated) => {
            setRotating(undefined);
            setToken(shownToken(rotated));
          }}
        />
      )}
      <AppTokenModal shown={token} onClose={() => setToken(undefined)} />
    </>
  );
}

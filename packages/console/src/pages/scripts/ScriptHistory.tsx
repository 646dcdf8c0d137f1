/**
 * A job's saved script versions, newest first: view one (read-only), see its differences from the
 * editor's text, or restore it (saved again as the newest version, so the next run runs it).
 */
import { DiffOutlined, EyeOutlined, RollbackOutlined } from '@ant-design/icons';
import { Button, Modal, Space, Table, type TableColumnsType, Tag, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { ScriptVersion } from '../../api/types';
import { Time } from '../../components/Time';
import { ScriptEditor } from './ScriptEditor';

interface ScriptHistoryProps {
  versions: ScriptVersion[] | undefined;
  loading: boolean;
  /** The version the job runs now (the newest, unless the list is empty). */
  currentId: number | undefined;
  /** The editor's text, which a diff compares against. */
  editorText: string;
  zone: string | undefined;
  restoring: number | undefined;
  onRestore(version: ScriptVersion): void;
}

type Shown = { version: ScriptVersion; mode: 'view' | 'diff' };

export function ScriptHistory({
  versions,
  loading,
  currentId,
  editorText,
  zone,
  restoring,
  onRestore,
}: ScriptHistoryProps) {
  const { t } = useTranslation('scripts');
  const [shown, setShown] = useState<Shown>();

  const columns: TableColumnsType<ScriptVersion> = [
    {
      key: 'version',
      title: t('history.version'),
      render: (_, version) => (
        <Space orientation="vertical" size={0}>
          <Space size="small" wrap>
            <Typography.Text strong>#{version.id}</Typography.Text>
            {version.id === currentId && <Tag color="blue">{t('history.current')}</Tag>}
          </Space>
          <Typography.Text type="secondary" style={{ fontSize: 12 }}>
            <Time value={version.createdAt} zone={zone} />
          </Typography.Text>
        </Space>
      ),
    },
    {
      key: 'remark',
      title: t('history.remark'),
      render: (_, version) => (
        <Space orientation="vertical" size={0}>
          <Typography.Text>{version.glueRemark === '' ? '—' : version.glueRemark}</Typography.Text>
          <Typography.Text type="secondary" style={{ fontSize: 12 }}>
            {t(`types.${version.glueType}`, { defaultValue: version.glueType })}
          </Typography.Text>
        </Space>
      ),
    },
    {
      key: 'actions',
      title: t('history.actions'),
      render: (_, version) => (
        <Space size={0} wrap>
          <Button
            type="link"
            size="small"
            icon={<EyeOutlined />}
            aria-label={t('history.viewVersion', { id: version.id })}
            onClick={() => setShown({ version, mode: 'view' })}
          >
            {t('common:actions.view')}
          </Button>
          <Button
            type="link"
            size="small"
            icon={<DiffOutlined />}
            aria-label={t('history.diffVersion', { id: version.id })}
            onClick={() => setShown({ version, mode: 'diff' })}
          >
            {t('history.diff')}
          </Button>
          <Button
            type="link"
            size="small"
            icon={<RollbackOutlined />}
            aria-label={t('history.restoreVersion', { id: version.id })}
            disabled={version.id === currentId}
            loading={restoring === version.id}
            onClick={() => onRestore(version)}
          >
            {t('history.restore')}
          </Button>
        </Space>
      ),
    },
  ];

  return (
    <>
      <Table<ScriptVersion>
        data-testid="script-versions"
        rowKey="id"
        size="small"
        columns={columns}
        dataSource={versions ?? []}
        loading={loading}
        pagination={false}
        scroll={{ x: true }}
        locale={{ emptyText: t('history.empty') }}
      />
      <Modal
        open={shown !== undefined}
        width={960}
        footer={null}
        onCancel={() => setShown(undefined)}
        title={
          shown === undefined
            ? undefined
            : shown.mode === 'view'
              ? t('history.viewTitle', { id: shown.version.id })
              : t('history.diffTitle', { id: shown.version.id })
        }
        destroyOnHidden
      >
        {shown !== undefined && (
          <>
            <Typography.Paragraph type="secondary">
              {shown.version.glueRemark === '' ? '—' : shown.version.glueRemark}
            </Typography.Paragraph>
            {shown.mode === 'view' ? (
              <ScriptEditor
                testId="script-version-view"
                value={shown.version.glueSource}
                glueType={shown.version.glueType}
                label={t('history.viewTitle', { id: shown.version.id })}
                readOnly
                height="60vh"
              />
            ) : (
              <ScriptEditor
                testId="script-version-diff"
                value={editorText}
                original={shown.version.glueSource}
                glueType={shown.version.glueType}
                label={t('history.diffTitle', { id: shown.version.id })}
                height="60vh"
              />
            )}
          </>
        )}
      </Modal>
    </>
  );
}

/**
 * The script editor of a script (GLUE) job: CodeMirror with the script type's highlighting, save
 * with a remark (a new version; the next run runs it), and the version history with view, diff
 * against the editor's text and restore. CodeMirror is imported only from this folder, so it is
 * fetched only when this page opens.
 */
import { SaveOutlined } from '@ant-design/icons';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  App as AntApp,
  Button,
  Card,
  Col,
  Form,
  Input,
  Modal,
  Result,
  Row,
  Select,
  Space,
  Tag,
  Typography,
} from 'antd';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate, useParams } from 'react-router-dom';
import { call, client } from '../../api/client';
import type { Job, ScriptVersion } from '../../api/types';
import { ApiErrorAlert } from '../../components/ApiErrorAlert';
import { PageLoading } from '../../components/PageLoading';
import { PageTitle } from '../../components/PageTitle';
import { useLeaveGuard } from '../../components/useLeaveGuard';
import { jobQuery } from '../fires/lookups';
import { GroovyWarning } from './GroovyWarning';
import { ScriptEditor } from './ScriptEditor';
import { ScriptHistory } from './ScriptHistory';
import { isScriptType, SCRIPT_TYPES, type ScriptType } from './script-languages';

/** `glue_remark` holds 128 characters. */
const REMARK_MAX = 128;

interface Draft {
  source: string;
  glueType: ScriptType;
}

export default function ScriptPage() {
  const { t } = useTranslation('scripts');
  const params = useParams();
  const id = /^\d+$/.test(params.id ?? '') ? Number(params.id) : undefined;
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const { modal, message } = AntApp.useApp();
  const [draft, setDraft] = useState<Draft>();
  const [saving, setSaving] = useState(false);
  const [remarkForm] = Form.useForm<{ remark: string }>();

  const job = useQuery({ ...jobQuery(id ?? 0), enabled: id !== undefined, staleTime: 0 });
  const versions = useQuery({
    queryKey: ['listScriptVersions', id],
    queryFn: () => call(client.GET('/api/v1/jobs/{id}/script/versions', { params: { path: { id: id! } } })),
    enabled: id !== undefined && job.data !== undefined && job.data !== null && job.data.glueType !== 'BEAN',
    select: (page) => page.items,
  });

  // The editor starts from the job's script once it has loaded.
  useEffect(() => {
    const loaded = job.data;
    if (draft === undefined && loaded && isScriptType(loaded.glueType)) {
      setDraft({ source: loaded.glueSource, glueType: loaded.glueType });
    }
  }, [job.data, draft]);

  const dirty =
    draft !== undefined &&
    job.data !== undefined &&
    job.data !== null &&
    (draft.source !== job.data.glueSource || draft.glueType !== job.data.glueType);

  // Leaving with unsaved changes (reload, a link, the page's buttons) asks first.
  const leave = useLeaveGuard(dirty, {
    title: t('leaveConfirm.title'),
    text: t('leaveConfirm.text'),
    leave: t('leaveConfirm.leave'),
    cancel: t('common:actions.cancel'),
  });

  const saved = (updated: Job) => {
    queryClient.setQueryData(['getJob', updated.id], updated);
    void queryClient.invalidateQueries({ queryKey: ['listScriptVersions', updated.id] });
    void queryClient.invalidateQueries({ queryKey: ['listJobs'] });
    if (isScriptType(updated.glueType)) setDraft({ source: updated.glueSource, glueType: updated.glueType });
  };

  const save = useMutation({
    mutationFn: (body: { glueType: ScriptType; glueSource: string; glueRemark: string }) =>
      call(client.PUT('/api/v1/jobs/{id}/script', { params: { path: { id: id! } }, body })),
    onSuccess: (updated) => {
      saved(updated);
      setSaving(false);
      remarkForm.resetFields();
      void message.success(t('saved'));
    },
  });

  const restore = useMutation({
    mutationFn: (version: ScriptVersion) =>
      call(
        client.POST('/api/v1/jobs/{id}/script/versions/{versionId}/restore', {
          params: { path: { id: id!, versionId: version.id } },
        }),
      ),
    onSuccess: (updated, version) => {
      saved(updated);
      void message.success(t('restored', { id: version.id }));
    },
  });

  if (id === undefined || job.data === null) {
    return <Result status="404" title="404" subTitle={t('notFound', { id: params.id })} />;
  }
  if (job.error !== null && job.data === undefined) {
    return <ApiErrorAlert error={job.error} onRetry={() => void job.refetch()} />;
  }
  if (job.data === undefined) return <PageLoading />;
  const current = job.data;

  if (!isScriptType(current.glueType)) {
    return (
      <Result
        status="info"
        title={t('notScript.title', { name: current.name })}
        subTitle={t('notScript.text', { handler: current.executorHandler })}
        extra={
          <Button type="primary" onClick={() => navigate(`/jobs/${current.id}`)}>
            {t('notScript.edit')}
          </Button>
        }
      />
    );
  }
  if (draft === undefined) return <PageLoading />;

  const confirmRestore = (version: ScriptVersion) =>
    modal.confirm({
      title: t('restoreConfirm.title', { id: version.id }),
      content: dirty ? t('restoreConfirm.unsaved') : t('restoreConfirm.text'),
      okText: t('history.restore'),
      cancelText: t('common:actions.cancel'),
      onOk: () => restore.mutateAsync(version).catch(() => undefined),
    });

  const history = versions.data;
  const newest = history?.[0];
  const currentId =
    newest !== undefined && newest.glueSource === current.glueSource && newest.glueType === current.glueType
      ? newest.id
      : undefined;

  return (
    <>
      <PageTitle
        title={
          <Space wrap>
            {t('title', { name: current.name })}
            {dirty && <Tag color="orange">{t('unsaved')}</Tag>}
          </Space>
        }
        extra={
          <>
            <Button onClick={() => leave(`/jobs/${current.id}`)}>{t('editJob')}</Button>
            <Button onClick={() => leave(`/fires?jobId=${current.id}`)}>{t('fires')}</Button>
            <Button type="primary" icon={<SaveOutlined />} onClick={() => setSaving(true)}>
              {t('common:actions.save')}
            </Button>
          </>
        }
      />
      <Space orientation="vertical" size="middle" style={{ width: '100%' }}>
        {restore.error !== null && <ApiErrorAlert error={restore.error} />}
        {draft.glueType === 'GLUE_GROOVY' && <GroovyWarning />}
        <Row gutter={[16, 16]}>
          <Col xs={24} xl={15}>
            <Card
              size="small"
              title={
                <Space wrap>
                  <label htmlFor="script-type">{t('type')}</label>
                  <Select<ScriptType>
                    id="script-type"
                    size="small"
                    style={{ minWidth: 180 }}
                    value={draft.glueType}
                    options={SCRIPT_TYPES.map((type) => ({ value: type, label: t(`types.${type}`) }))}
                    onChange={(glueType) => setDraft({ ...draft, glueType })}
                  />
                </Space>
              }
            >
              <ScriptEditor
                testId="script-editor"
                value={draft.source}
                glueType={draft.glueType}
                label={t('editorLabel', { name: current.name })}
                onChange={(source) => setDraft((before) => (before ? { ...before, source } : before))}
              />
              <Typography.Paragraph type="secondary" style={{ margin: '8px 0 0' }}>
                {t('editorHint')}
              </Typography.Paragraph>
            </Card>
          </Col>
          <Col xs={24} xl={9}>
            <Card size="small" title={t('history.title')}>
              {versions.error !== null ? (
                <ApiErrorAlert error={versions.error} onRetry={() => void versions.refetch()} />
              ) : (
                <ScriptHistory
                  versions={history}
                  loading={versions.isLoading}
                  currentId={currentId}
                  editorText={draft.source}
                  zone={current.timeZone}
                  restoring={restore.isPending ? restore.variables?.id : undefined}
                  onRestore={confirmRestore}
                />
              )}
            </Card>
          </Col>
        </Row>
        <Typography.Text type="secondary">
          <Link to="/jobs">{t('backToJobs')}</Link>
        </Typography.Text>
      </Space>
      <Modal
        open={saving}
        title={t('saveTitle')}
        okText={t('common:actions.save')}
        cancelText={t('common:actions.cancel')}
        confirmLoading={save.isPending}
        onCancel={() => {
          setSaving(false);
          save.reset();
        }}
        onOk={() =>
          void remarkForm
            .validateFields()
            .then(({ remark }) =>
              save.mutate({ glueType: draft.glueType, glueSource: draft.source, glueRemark: remark.trim() }),
            )
            .catch(() => undefined)
        }
        forceRender
      >
        <Form
          form={remarkForm}
          layout="vertical"
          onFinish={({ remark }) =>
            save.mutate({ glueType: draft.glueType, glueSource: draft.source, glueRemark: remark.trim() })
          }
        >
          <Form.Item
            name="remark"
            label={t('remark')}
            extra={t('remarkHint')}
            rules={[
              { required: true, whitespace: true, message: t('remarkRequired') },
              { max: REMARK_MAX, message: t('remarkTooLong', { max: REMARK_MAX }) },
            ]}
          >
            <Input autoFocus maxLength={REMARK_MAX} showCount />
          </Form.Item>
        </Form>
        {save.error !== null && <ApiErrorAlert error={save.error} />}
      </Modal>
    </>
  );
}

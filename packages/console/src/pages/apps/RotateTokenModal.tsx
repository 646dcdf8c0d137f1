/**
 * Rotating an app's executor token (admins): the dialog asks how long the token it replaces
 * stays valid (1 hour, 24 hours, 7 days, or not at all), then hands the new token to the page,
 * which shows it once.
 */
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Alert, Modal, Radio, Space, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { call, client } from '../../api/client';
import type { App, AppWithToken } from '../../api/types';
import { ApiErrorAlert } from '../../components/ApiErrorAlert';

const HOUR_MS = 60 * 60 * 1000;

/** How long the replaced token stays valid, by choice; `none` revokes it at once. */
const OVERLAPS = { hour: HOUR_MS, day: 24 * HOUR_MS, week: 7 * 24 * HOUR_MS, none: 0 } as const;
type Overlap = keyof typeof OVERLAPS;

export interface RotateTokenModalProps {
  app: App;
  onClose(): void;
  onRotated(app: AppWithToken): void;
}

/** Mount it to open it (and unmount to close). */
export function RotateTokenModal({ app, onClose, onRotated }: RotateTokenModalProps) {
  const { t } = useTranslation('apps');
  const queryClient = useQueryClient();
  const [overlap, setOverlap] = useState<Overlap>('day');

  const rotate = useMutation({
    mutationFn: (choice: Overlap) =>
      call(
        client.POST('/api/v1/apps/{id}/rotate-token', {
          params: { path: { id: app.id } },
          // A time already past (0) revokes the old token at once.
          body: { previousTokenValidUntil: choice === 'none' ? 0 : Date.now() + OVERLAPS[choice] },
        }),
      ),
    onSuccess: async (rotated) => {
      await queryClient.invalidateQueries({ queryKey: ['apps'] });
      onRotated(rotated);
    },
  });

  return (
    <Modal
      open
      title={t('rotateTitle', { name: app.appName })}
      okText={t('rotateOk')}
      cancelText={t('common:actions.cancel')}
      okButtonProps={{ danger: overlap === 'none', loading: rotate.isPending }}
      onOk={() => rotate.mutate(overlap)}
      onCancel={onClose}
      maskClosable={false}
      destroyOnHidden
    >
      {rotate.isError && (
        <div style={{ marginBottom: 16 }}>
          <ApiErrorAlert error={rotate.error} />
        </div>
      )}
      <Typography.Paragraph>
        {app.credential === 'installation' ? t('rotateIntroInstallation') : t('rotateIntro')}
      </Typography.Paragraph>
      <Typography.Paragraph strong id="rotate-overlap-label">
        {t('overlap')}
      </Typography.Paragraph>
      <Radio.Group
        aria-labelledby="rotate-overlap-label"
        value={overlap}
        onChange={(event) => setOverlap(event.target.value as Overlap)}
      >
        <Space orientation="vertical">
          {(Object.keys(OVERLAPS) as Overlap[]).map((choice) => (
            <Radio key={choice} value={choice}>
              {t(`overlaps.${choice}`)}
            </Radio>
          ))}
        </Space>
      </Radio.Group>
      {overlap === 'none' && (
        <Alert type="warning" showIcon title={t('overlapNoneWarning')} style={{ marginTop: 16 }} />
      )}
    </Modal>
  );
}

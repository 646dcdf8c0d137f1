/**
 * An app's new executor token, shown once (after createApp or rotateAppToken): a copy button,
 * the warning that it will not be shown again, and how to give it to the app's executors.
 * It closes only through its button, so the token is not lost to a stray click.
 */
import { Alert, Button, Modal, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { formatTime } from '../../components/Time';

/** A snippet to copy: kept as typed, scrolling sideways when a line is long. */
const SNIPPET = {
  whiteSpace: 'pre',
  overflowX: 'auto',
  padding: '8px 12px',
  marginTop: 4,
  background: 'rgba(0, 0, 0, 0.04)',
  borderRadius: 6,
} as const;

export interface ShownToken {
  appName: string;
  accessToken: string;
  previousTokenValidUntil: number | null;
}

export function AppTokenModal({ shown, onClose }: { shown: ShownToken | undefined; onClose(): void }) {
  const { t } = useTranslation('apps');
  const serverUrl = `${window.location.origin}/`;
  const appName = shown?.appName ?? '';
  const cli = `npx tickwheel executor --app ${appName} \\\n  --server ${serverUrl} \\\n  --token-file /etc/tickwheel/${appName}.token`;
  const sdk = `createExecutor({\n  appName: '${appName}',\n  serverAddresses: ['${serverUrl}'],\n  accessToken: process.env.TICKWHEEL_ACCESS_TOKEN,\n  // or accessTokenFile: '/etc/tickwheel/${appName}.token',\n});`;
  return (
    <Modal
      open={shown !== undefined}
      title={t('tokenTitle', { name: appName })}
      closable={false}
      maskClosable={false}
      keyboard={false}
      destroyOnHidden
      width={640}
      footer={
        <Button type="primary" onClick={onClose}>
          {t('tokenDone')}
        </Button>
      }
    >
      <Alert type="warning" showIcon title={t('tokenShownOnce')} style={{ marginBottom: 16 }} />
      <Typography.Paragraph
        code
        data-testid="app-token"
        copyable={{
          text: shown?.accessToken ?? '',
          tooltips: [t('common:actions.copy'), t('tokenCopied')],
        }}
        style={{ wordBreak: 'break-all' }}
      >
        {shown?.accessToken}
      </Typography.Paragraph>
      {shown?.previousTokenValidUntil != null && (
        <Typography.Paragraph data-testid="app-token-previous">
          {t('tokenPreviousUntil', { time: formatTime(shown.previousTokenValidUntil) })}
        </Typography.Paragraph>
      )}
      <Typography.Paragraph strong>{t('tokenHowTo')}</Typography.Paragraph>
      <Typography.Text type="secondary">{t('tokenCli')}</Typography.Text>
      <pre style={SNIPPET}>{cli}</pre>
      <Typography.Text type="secondary">{t('tokenSdk')}</Typography.Text>
      <pre style={SNIPPET}>{sdk}</pre>
      <Typography.Text type="secondary">{t('tokenXxlJob')}</Typography.Text>
    </Modal>
  );
}

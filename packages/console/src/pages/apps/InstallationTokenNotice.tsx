/**
 * A warning while any app the caller sees still uses the installation-wide executor token
 * (compatibility mode): how many, which, and (on other pages) a link to the apps page.
 */
import { Alert } from 'antd';
import type { CSSProperties } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router-dom';
import { useAllApps } from '../../components/useAllApps';

/** How many app names the notice spells out before "…". */
const NAMES_SHOWN = 5;

export function InstallationTokenNotice({ link = false, style }: { link?: boolean; style?: CSSProperties }) {
  const { t } = useTranslation('apps');
  const { apps } = useAllApps();
  const legacy = apps.filter((app) => app.credential === 'installation');
  if (legacy.length === 0) return null;
  const names =
    legacy
      .slice(0, NAMES_SHOWN)
      .map((app) => app.appName)
      .join(', ') + (legacy.length > NAMES_SHOWN ? ', …' : '');
  return (
    <Alert
      type="warning"
      showIcon
      style={style}
      data-testid="installation-token-notice"
      title={t('installationNotice', { count: legacy.length })}
      description={t('installationNoticeHelp', { count: legacy.length, names })}
      action={link ? <Link to="/apps">{t('installationNoticeLink')}</Link> : undefined}
    />
  );
}

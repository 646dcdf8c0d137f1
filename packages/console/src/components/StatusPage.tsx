/** The 403 and 404 pages (a chunk of their own: antd's Result carries large illustrations). */
import { Result } from 'antd';
import { useTranslation } from 'react-i18next';

export default function StatusPage({ status }: { status: 403 | 404 }) {
  const { t } = useTranslation();
  return status === 403 ? (
    <Result status="403" title="403" subTitle={t('forbidden')} />
  ) : (
    <Result status="404" title="404" subTitle={t('notFound')} />
  );
}

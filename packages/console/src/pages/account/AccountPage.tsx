/**
 * Change your own password: the current one, the new one twice. The server's reasons (a wrong
 * current password, too many tries) show on the field they are about; after the change the
 * other sessions are gone, which the page says.
 */
import { Alert, Card } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { PageTitle } from '../../components/PageTitle';
import { ChangePasswordForm } from './ChangePasswordForm';

export default function AccountPage() {
  const { t } = useTranslation('account');
  const [changed, setChanged] = useState(false);

  return (
    <>
      <PageTitle title={t('title')} />
      <Card style={{ maxWidth: 480 }}>
        <Alert type="info" showIcon title={t('intro')} style={{ marginBottom: 16 }} />
        {changed && (
          <Alert
            type="success"
            showIcon
            role="status"
            title={t('changed')}
            description={t('changedDetail')}
            style={{ marginBottom: 16 }}
          />
        )}
        <ChangePasswordForm onSubmit={() => setChanged(false)} onChanged={() => setChanged(true)} />
      </Card>
    </>
  );
}

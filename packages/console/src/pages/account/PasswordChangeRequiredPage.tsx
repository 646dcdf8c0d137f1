/**
 * What a user who must change their password sees instead of the console (an account an admin or
 * the XXL-JOB importer made for them, or a reset password): the change-password form on a page of
 * its own, and a way to sign out. Once the server takes the new password, `getCurrentUser` is
 * read again and the console opens on the page that was asked for.
 */
import { Alert, Button, Flex, Segmented, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router-dom';
import { useAuth } from '../../auth/AuthContext';
import { type Language, setLanguage } from '../../i18n';
import { ChangePasswordForm } from './ChangePasswordForm';

export default function PasswordChangeRequiredPage() {
  const { t, i18n } = useTranslation('account');
  const { user, logout, refresh } = useAuth();
  const navigate = useNavigate();

  return (
    <Flex justify="center" align="center" style={{ minHeight: '100vh', padding: 16, background: '#f5f5f5' }}>
      <main
        data-testid="password-change-required"
        style={{
          width: '100%',
          maxWidth: 420,
          padding: 24,
          background: '#fff',
          borderRadius: 8,
          border: '1px solid #f0f0f0',
        }}
      >
        <Flex justify="flex-end">
          <Segmented
            size="small"
            aria-label={t('common:language')}
            data-testid="language-switch"
            value={i18n.language === 'zh' ? 'zh' : 'en'}
            options={[
              { label: 'EN', value: 'en' },
              { label: '中文', value: 'zh' },
            ]}
            onChange={(value) => void setLanguage(value as Language)}
          />
        </Flex>
        <Typography.Title level={1} style={{ fontSize: 24, margin: '8px 0' }}>
          {t('required.title')}
        </Typography.Title>
        <Typography.Paragraph type="secondary">
          {t('required.signedInAs', { username: user?.username ?? '' })}
        </Typography.Paragraph>
        <Alert type="info" showIcon title={t('required.why')} style={{ marginBottom: 16 }} />
        <ChangePasswordForm block onChanged={refresh} />
        <Flex justify="center" style={{ marginTop: 16 }}>
          <Button type="link" onClick={() => void logout().then(() => navigate('/login'))}>
            {t('common:nav.logout')}
          </Button>
        </Flex>
      </main>
    </Flex>
  );
}

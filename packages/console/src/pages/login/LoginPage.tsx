import { LockOutlined, UserOutlined } from '@ant-design/icons';
import { Alert, Button, Flex, Form, Input, Segmented } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Navigate, useLocation, useNavigate } from 'react-router-dom';
import { useAuth } from '../../auth/AuthContext';
import { errorText } from '../../components/ApiErrorAlert';
import { type Language, setLanguage } from '../../i18n';

interface Credentials {
  username: string;
  password: string;
}

export default function LoginPage() {
  const { t, i18n } = useTranslation('login');
  const { user, login } = useAuth();
  const navigate = useNavigate();
  const location = useLocation();
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const from = (location.state as { from?: string } | null)?.from ?? '/';

  if (user) return <Navigate to={from} replace />;

  const submit = async ({ username, password }: Credentials) => {
    setBusy(true);
    setError(undefined);
    try {
      await login(username, password);
      navigate(from, { replace: true });
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <Flex justify="center" align="center" style={{ minHeight: '100vh', padding: 16, background: '#f5f5f5' }}>
      {/* Plain boxes rather than Card and Typography: this page is in the entry chunk, kept small. */}
      <main
        style={{
          width: '100%',
          maxWidth: 380,
          padding: 24,
          background: '#fff',
          borderRadius: 8,
          border: '1px solid #f0f0f0',
        }}
      >
        <Flex justify="flex-end">
          <Segmented
            size="small"
            data-testid="language-switch"
            value={i18n.language === 'zh' ? 'zh' : 'en'}
            options={[
              { label: 'EN', value: 'en' },
              { label: '中文', value: 'zh' },
            ]}
            onChange={(value) => void setLanguage(value as Language)}
          />
        </Flex>
        <h1 style={{ fontSize: 24, fontWeight: 600, margin: '8px 0' }}>{t('title')}</h1>
        <p style={{ color: 'rgba(0, 0, 0, 0.45)', margin: '0 0 16px' }}>{t('subtitle')}</p>
        {error !== undefined && (
          <Alert
            type="error"
            showIcon
            role="alert"
            title={errorText(error, t)}
            style={{ marginBottom: 16 }}
          />
        )}
        <Form<Credentials> layout="vertical" onFinish={submit} requiredMark={false}>
          <Form.Item
            name="username"
            label={t('username')}
            rules={[{ required: true, message: t('usernameRequired') }]}
          >
            <Input prefix={<UserOutlined />} autoComplete="username" autoFocus />
          </Form.Item>
          <Form.Item
            name="password"
            label={t('password')}
            rules={[{ required: true, message: t('passwordRequired') }]}
          >
            <Input.Password prefix={<LockOutlined />} autoComplete="current-password" />
          </Form.Item>
          <Button type="primary" htmlType="submit" block loading={busy}>
            {t('submit')}
          </Button>
        </Form>
      </main>
    </Flex>
  );
}

import { LockOutlined, UserOutlined } from '@ant-design/icons';
import { Alert, Button, Card, Flex, Form, Input, Segmented, Typography } from 'antd';
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
      <Card style={{ width: '100%', maxWidth: 380 }}>
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
        <Typography.Title level={3}>{t('title')}</Typography.Title>
        <Typography.Paragraph type="secondary">{t('subtitle')}</Typography.Paragraph>
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
      </Card>
    </Flex>
  );
}

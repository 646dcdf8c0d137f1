/**
 * The signed-in frame: side navigation (a drawer-like collapse on phones), the language switch
 * and the user's menu; pages render in the content area.
 */
import {
  ApiOutlined,
  AppstoreOutlined,
  AuditOutlined,
  BellOutlined,
  DashboardOutlined,
  HistoryOutlined,
  KeyOutlined,
  LockOutlined,
  LogoutOutlined,
  MenuFoldOutlined,
  MenuUnfoldOutlined,
  NodeExpandOutlined,
  PartitionOutlined,
  ScheduleOutlined,
  TeamOutlined,
  UserOutlined,
} from '@ant-design/icons';
import { Button, Dropdown, Flex, Layout, Menu, Segmented, Typography } from 'antd';
import { type ReactNode, Suspense, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, Outlet, useLocation, useNavigate } from 'react-router-dom';
import { useAuth } from './auth/AuthContext';
import { PageLoading } from './components/PageLoading';
import { type Language, setLanguage } from './i18n';

const { Sider, Header, Content } = Layout;

interface NavItem {
  key: string;
  icon: ReactNode;
  label: string;
  admin?: boolean;
}

export function Shell() {
  const { t, i18n } = useTranslation();
  const { user, logout, isAdmin } = useAuth();
  const location = useLocation();
  const navigate = useNavigate();
  const [collapsed, setCollapsed] = useState(false);
  const [narrow, setNarrow] = useState(false);

  const items: NavItem[] = [
    { key: '/', icon: <DashboardOutlined />, label: t('nav.dashboard') },
    { key: '/apps', icon: <AppstoreOutlined />, label: t('nav.apps') },
    { key: '/jobs', icon: <ScheduleOutlined />, label: t('nav.jobs') },
    { key: '/workflows', icon: <PartitionOutlined />, label: t('nav.workflows') },
    { key: '/workflow-runs', icon: <NodeExpandOutlined />, label: t('nav.workflowRuns') },
    { key: '/fires', icon: <HistoryOutlined />, label: t('nav.fires') },
    { key: '/users', icon: <TeamOutlined />, label: t('nav.users'), admin: true },
    { key: '/channels', icon: <BellOutlined />, label: t('nav.channels'), admin: true },
    { key: '/audit', icon: <AuditOutlined />, label: t('nav.audit'), admin: true },
    { key: '/tokens', icon: <ApiOutlined />, label: t('nav.tokens') },
  ];
  const visible = items.filter((item) => isAdmin || item.admin !== true);
  const selected =
    visible
      .filter((item) => item.key !== '/' && location.pathname.startsWith(item.key))
      .sort((a, b) => b.key.length - a.key.length)[0]?.key ?? (location.pathname === '/' ? '/' : '');

  return (
    <Layout style={{ minHeight: '100vh' }}>
      {narrow && !collapsed && (
        // A tap beside the open menu closes it.
        <div
          aria-hidden
          onClick={() => setCollapsed(true)}
          style={{ position: 'fixed', inset: 0, zIndex: 99, background: 'rgba(0, 0, 0, 0.25)' }}
        />
      )}
      <Sider
        breakpoint="lg"
        collapsedWidth={narrow ? 0 : 64}
        collapsible
        // On a phone the header's menu button opens and closes it (the floating trigger would cover the page).
        trigger={narrow ? null : undefined}
        collapsed={collapsed}
        onCollapse={setCollapsed}
        onBreakpoint={(broken) => {
          setNarrow(broken);
          setCollapsed(broken);
        }}
        theme="light"
        style={
          narrow
            ? // On a phone the open menu lies over the page instead of squeezing it.
              {
                position: 'fixed',
                insetBlock: 0,
                left: 0,
                zIndex: 100,
                boxShadow: '2px 0 8px rgba(0, 0, 0, 0.15)',
              }
            : { borderRight: '1px solid #f0f0f0' }
        }
      >
        <Link to="/" style={{ display: 'block', padding: '16px 20px' }}>
          <Typography.Text strong style={{ fontSize: 18 }}>
            {collapsed ? 'TW' : t('product')}
          </Typography.Text>
        </Link>
        <Menu
          mode="inline"
          selectedKeys={[selected]}
          items={visible.map((item) => ({
            key: item.key,
            icon: item.icon,
            label: <Link to={item.key}>{item.label}</Link>,
          }))}
          onClick={() => {
            if (narrow) setCollapsed(true);
          }}
        />
      </Sider>
      <Layout>
        <Header
          style={{
            background: '#fff',
            padding: '0 16px',
            borderBottom: '1px solid #f0f0f0',
            display: 'flex',
            justifyContent: 'space-between',
            alignItems: 'center',
          }}
        >
          <span>
            {narrow && (
              <Button
                type="text"
                aria-label={t('nav.menu')}
                icon={collapsed ? <MenuUnfoldOutlined /> : <MenuFoldOutlined />}
                onClick={() => setCollapsed(!collapsed)}
              />
            )}
          </span>
          <Flex gap="middle" align="center">
            <Segmented
              aria-label={t('language')}
              data-testid="language-switch"
              size="small"
              value={i18n.language === 'zh' ? 'zh' : 'en'}
              options={[
                { label: 'EN', value: 'en' },
                { label: '中文', value: 'zh' },
              ]}
              onChange={(value) => void setLanguage(value as Language)}
            />
            <Dropdown
              trigger={['click']}
              menu={{
                items: [
                  { key: 'account', icon: <LockOutlined />, label: t('nav.account') },
                  { key: 'tokens', icon: <KeyOutlined />, label: t('nav.tokens') },
                  { type: 'divider' },
                  { key: 'logout', icon: <LogoutOutlined />, label: t('nav.logout') },
                ],
                onClick: ({ key }) => {
                  if (key === 'logout') void logout().then(() => navigate('/login'));
                  else navigate(`/${key}`);
                },
              }}
            >
              <Button type="text" icon={<UserOutlined />} data-testid="user-menu">
                {user?.username}
              </Button>
            </Dropdown>
          </Flex>
        </Header>
        <Content style={{ padding: 16, minWidth: 0 }}>
          <Suspense fallback={<PageLoading />}>
            <Outlet />
          </Suspense>
        </Content>
      </Layout>
    </Layout>
  );
}

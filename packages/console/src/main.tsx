import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { App as AntApp, ConfigProvider } from 'antd';
import enUS from 'antd/locale/en_US';
import zhCN from 'antd/locale/zh_CN';
import dayjs from 'dayjs';
import 'dayjs/locale/zh-cn';
import { StrictMode, useEffect } from 'react';
import { createRoot } from 'react-dom/client';
import { useTranslation } from 'react-i18next';
import { App } from './App';
import { ApiError } from './api/client';
import { AuthProvider } from './auth/AuthContext';
import { useReducedMotion } from './components/reducedMotion';
import './i18n';

const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      // An API refusal (4xx) will not change by asking again; a network blip may.
      retry: (count, err) => !(err instanceof ApiError && err.status >= 400 && err.status < 500) && count < 2,
      refetchOnWindowFocus: false,
    },
  },
});

/**
 * A dialog's close button sits over the top right of its header and antd leaves the title the
 * whole width, so a long title ("Trigger <job name> once") ran under it: the title stops short.
 */
const MODAL = { styles: { title: { marginInlineEnd: 36 } } };

function Root() {
  const { i18n } = useTranslation();
  const zh = i18n.language === 'zh';
  const reducedMotion = useReducedMotion();
  useEffect(() => {
    dayjs.locale(zh ? 'zh-cn' : 'en');
  }, [zh]);
  return (
    <ConfigProvider
      locale={zh ? zhCN : enUS}
      theme={{ token: { colorPrimary: '#1677ff', motion: !reducedMotion } }}
      modal={MODAL}
    >
      <AntApp>
        <QueryClientProvider client={queryClient}>
          <AuthProvider>
            <App />
          </AuthProvider>
        </QueryClientProvider>
      </AntApp>
    </ConfigProvider>
  );
}

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <Root />
  </StrictMode>,
);

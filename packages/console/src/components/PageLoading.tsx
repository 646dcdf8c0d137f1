import { Flex, Spin } from 'antd';
import { useTranslation } from 'react-i18next';

export function PageLoading() {
  const { t } = useTranslation();
  return (
    <Flex justify="center" align="center" style={{ padding: 48 }}>
      <Spin tip={t('states.loading')}>
        <div style={{ width: 80, height: 40 }} />
      </Spin>
    </Flex>
  );
}

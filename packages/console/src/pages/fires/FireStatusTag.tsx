import { Tag } from 'antd';
import { useTranslation } from 'react-i18next';
import { statusColor } from './fire-status';

/** A fire's status as a coloured tag; `data-status` carries the API's name for tests and styles. */
export function FireStatusTag({ status }: { status: string }) {
  const { t } = useTranslation('fires');
  return (
    <Tag color={statusColor(status)} data-status={status} style={{ marginInlineEnd: 0 }}>
      {t(`status.${status}`, { defaultValue: status })}
    </Tag>
  );
}

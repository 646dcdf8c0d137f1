import { Tag } from 'antd';
import { useTranslation } from 'react-i18next';
import { statusTagColor } from './run-status';

/** A run's or a node's status as a coloured tag; `data-status` carries the API's name for tests. */
export function RunStatusTag({ status }: { status: string }) {
  const { t } = useTranslation('workflows');
  return (
    <Tag color={statusTagColor(status)} data-status={status} style={{ marginInlineEnd: 0 }}>
      {t(`status.${status}`, { defaultValue: status })}
    </Tag>
  );
}

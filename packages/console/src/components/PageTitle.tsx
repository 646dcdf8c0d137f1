import { Flex, Typography } from 'antd';
import type { ReactNode } from 'react';

/** A page's heading with its actions on the right (wrapping under it on a phone). */
export function PageTitle({ title, extra }: { title: ReactNode; extra?: ReactNode }) {
  return (
    <Flex justify="space-between" align="center" wrap gap="small" style={{ marginBottom: 16 }}>
      <Typography.Title level={3} style={{ margin: 0 }}>
        {title}
      </Typography.Title>
      {extra !== undefined && (
        <Flex gap="small" wrap>
          {extra}
        </Flex>
      )}
    </Flex>
  );
}

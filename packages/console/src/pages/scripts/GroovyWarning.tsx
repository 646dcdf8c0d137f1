/**
 * What a Groovy (GLUE_GROOVY) job needs: XXL-JOB's Java executors run it, Tickwheel's executors
 * refuse it. Shown wherever such a script is edited (the script editor, the job form). No
 * CodeMirror here, so the job form may import it without fetching the editor.
 */
import { Alert } from 'antd';
import type { CSSProperties } from 'react';
import { useTranslation } from 'react-i18next';

export function GroovyWarning({ style }: { style?: CSSProperties }) {
  const { t } = useTranslation('scripts');
  return (
    <Alert
      type="warning"
      showIcon
      title={t('groovyWarning.title')}
      description={t('groovyWarning.text')}
      data-testid="groovy-warning"
      style={style}
    />
  );
}

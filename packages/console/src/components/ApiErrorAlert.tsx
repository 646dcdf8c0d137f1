/** An API error as people should see it: the field it names and the reason, as plain text. */
import { Alert, Button } from 'antd';
import { useTranslation } from 'react-i18next';
import { ApiError } from '../api/client';

export function errorText(
  err: unknown,
  t: (key: string, options?: Record<string, unknown>) => string,
): string {
  if (err instanceof ApiError) {
    if (err.status === 0) return `${t('common:networkError')}: ${err.message}`;
    // The server's messages usually start with the field already ("name: must not be empty").
    const detail =
      err.field !== undefined && !err.message.startsWith(`${err.field}:`)
        ? t('common:fieldError', { field: err.field, message: err.message })
        : err.message;
    // The server speaks English; in Chinese the code's meaning comes first ("字段无效：name: …").
    const summary = t(`common:errorCodes.${err.code}`, { defaultValue: '' });
    return summary === '' ? detail : t('common:errorSummary', { summary, detail });
  }
  return err instanceof Error ? err.message : String(err);
}

export function ApiErrorAlert({ error, onRetry }: { error: unknown; onRetry?: () => void }) {
  const { t } = useTranslation();
  return (
    <Alert
      type="error"
      showIcon
      role="alert"
      title={t('common:states.error')}
      description={errorText(error, t)}
      action={
        onRetry === undefined ? undefined : (
          <Button size="small" onClick={onRetry}>
            {t('common:states.retry')}
          </Button>
        )
      }
    />
  );
}

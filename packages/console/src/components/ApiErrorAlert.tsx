/** An API error as people should see it: the field it names and the reason, as plain text. */
import { Alert, Button } from 'antd';
import { useTranslation } from 'react-i18next';
import { ApiError } from '../api/client';

type Translate = (key: string, options?: Record<string, unknown>) => string;

/**
 * What a refusal for want of rights means to the person, or undefined for any other error. The
 * server says which of its two checks refused: the caller's apps, or an admin-only operation.
 */
export function forbiddenText(err: unknown, t: Translate): string | undefined {
  if (!(err instanceof ApiError) || err.status !== 403 || err.code !== 'TW_ERR_FORBIDDEN') return undefined;
  return t(err.message.startsWith('only admins may') ? 'common:forbiddenAdmin' : 'common:forbiddenApp');
}

export function errorText(err: unknown, t: Translate): string {
  if (err instanceof ApiError) {
    if (err.status === 0) return `${t('common:networkError')}: ${err.message}`;
    const forbidden = forbiddenText(err, t);
    if (forbidden !== undefined) {
      return t('common:forbiddenSummary', { summary: forbidden, detail: err.message });
    }
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
  const forbidden = forbiddenText(error, t);
  return (
    <Alert
      type="error"
      showIcon
      role="alert"
      title={forbidden ?? t('common:states.error')}
      // Under a "no permission" title the server's own sentence says which app or action.
      description={forbidden === undefined ? errorText(error, t) : (error as ApiError).message}
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

/**
 * Putting an API error on the form field it names, so the reason shows under the input the
 * person has to change rather than in a banner above the form.
 */
import type { FormInstance } from 'antd';
import { ApiError } from '../api/client';

/** The form name path of an API field: `config.to[1]` → `['config', 'to']`, `appIds[0]` → `['appIds']`. */
export function fieldNamePath(field: string): string[] {
  return field
    .replace(/\[\d+\]/g, '')
    .split('.')
    .filter((part) => part !== '');
}

/**
 * Shows `err` under the field of `form` it names (without the `field:` prefix the server's
 * messages start with). Answers false when the error names no field the form has: the caller
 * shows it with `ApiErrorAlert` instead.
 */
export function showFieldError(form: FormInstance, err: unknown): boolean {
  if (!(err instanceof ApiError) || err.field === undefined) return false;
  const path = fieldNamePath(err.field);
  const key = path.join('.');
  const registered = form
    .getFieldsError()
    .some(({ name }) => (Array.isArray(name) ? name.join('.') : String(name)) === key);
  if (!registered) return false;
  const message = err.message.startsWith(`${err.field}:`)
    ? err.message.slice(err.field.length + 1).trim()
    : err.message;
  form.setFields([{ name: path, errors: [message] }]);
  form.scrollToField(path);
  return true;
}

/**
 * Mount prefixes: the executor's endpoint can live under a path of another HTTP server
 * (`/xxl-job` → `/xxl-job/run`). The call path left after the prefix is matched exactly, as
 * XXL-JOB matches its own paths.
 */
import { TickwheelError } from '@tickwheel/protocol';

/**
 * Normalises a mount prefix to `''` (the root) or `/a/b` (a leading slash, no trailing one).
 *
 * @example
 * normalizeMountPrefix('xxl-job/') // '/xxl-job'
 */
export function normalizeMountPrefix(prefix: string): string {
  if (typeof prefix !== 'string' || /[\s?#]/.test(prefix) || prefix.includes('//')) {
    throw new TickwheelError(
      'TW_ERR_INVALID_OPTION',
      `prefix: must be a URL path such as /xxl-job, got ${JSON.stringify(prefix)}`,
      'prefix',
    );
  }
  const trimmed = prefix.replace(/^\/+|\/+$/g, '');
  return trimmed === '' ? '' : `/${trimmed}`;
}

/**
 * The request URL's call path under `prefix` (`/run` for `/xxl-job/run`, `//run` for
 * `/xxl-job//run`), or undefined when the URL is not under the prefix at all.
 *
 * @example
 * callPathUnder('/xxl-job', '/xxl-job/beat') // '/beat'
 * callPathUnder('/xxl-job', '/other/beat')   // undefined
 */
export function callPathUnder(prefix: string, url: string): string | undefined {
  if (prefix === '') return url;
  if (url === prefix) return '';
  if (!url.startsWith(prefix)) return undefined;
  const next = url.charAt(prefix.length);
  return next === '/' || next === '?' ? url.slice(prefix.length) : undefined;
}

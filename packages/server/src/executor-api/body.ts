/**
 * Request bodies of the executor-facing calls, read the lenient way XXL-JOB clients need: the
 * body is taken as UTF-8 JSON whatever the content type says (`application/json;charset=UTF-8`,
 * `text/plain`, or none at all).
 */
import { TickwheelError } from '@tickwheel/protocol';

/** Parses a raw body; an empty one is `null`. Throws `TW_ERR_INVALID_JSON` saying what is wrong. */
export function parseJsonBody(raw: Buffer | string | undefined | null): unknown {
  const text = raw == null ? '' : typeof raw === 'string' ? raw : raw.toString('utf8');
  if (isBlank(text)) return null;
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new TickwheelError(
      'TW_ERR_INVALID_JSON',
      `invalid request, malformed JSON body: ${(err as Error).message}`,
    );
  }
}

/**
 * True when `text` is empty or whitespace only, as `text.trim() === ''` (`\s` is the same set),
 * but stopping at the first other character instead of copying a large body.
 */
function isBlank(text: string): boolean {
  return !/\S/.test(text);
}

import type { z } from 'zod';
import { type ErrorCode, TickwheelError } from './errors.js';

/** Renders a zod issue path as a field name: `callbackList[2].logId`. */
export function fieldName(path: readonly PropertyKey[], prefix = ''): string {
  let out = prefix;
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else out += out === '' ? String(key) : `.${String(key)}`;
  }
  return out;
}

function describeIssue(issue: z.core.$ZodIssue): string {
  switch (issue.code) {
    case 'invalid_type':
      return issue.input === undefined ? 'is required' : `must be ${article(issue.expected)}`;
    case 'too_small':
      return issue.origin === 'string' ? 'must not be blank' : `must be >= ${String(issue.minimum)}`;
    case 'too_big':
      return issue.origin === 'string'
        ? `must be at most ${String(issue.maximum)} characters`
        : `must be <= ${String(issue.maximum)}`;
    case 'invalid_value':
      return `must be one of ${issue.values.map((v) => String(v)).join(', ')}`;
    default:
      return issue.message;
  }
}

function article(expected: string): string {
  if (expected === 'int') return 'an integer';
  if (expected === 'object' || expected === 'array') return `an ${expected}`;
  return `a ${expected}`;
}

/**
 * Parses `input` with `schema`; on failure throws a TickwheelError naming the first bad
 * field and the reason, e.g. `logId: must be an integer`.
 */
export function parseWith<T extends z.ZodType>(
  schema: T,
  input: unknown,
  options: { code?: ErrorCode; prefix?: string; what?: string } = {},
): z.output<T> {
  const result = schema.safeParse(input, { reportInput: true });
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  if (!issue) throw new TickwheelError(options.code ?? 'TW_ERR_INVALID_FIELD', 'invalid input');
  const field = fieldName(issue.path, options.prefix);
  const reason = describeIssue(issue);
  const message = field === '' ? `${options.what ?? 'body'} ${reason}` : `${field}: ${reason}`;
  throw new TickwheelError(options.code ?? 'TW_ERR_INVALID_FIELD', message, field || undefined);
}

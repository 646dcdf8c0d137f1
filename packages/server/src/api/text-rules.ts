/**
 * Which characters the strings the REST API takes may hold.
 *
 * - Every string — values and object keys, in bodies, query strings and paths — is well-formed
 *   Unicode and holds no NUL. A lone surrogate (JSON `"\ud800"`) has no UTF-8 form: the
 *   databases would store U+FFFD or bytes that are not UTF-8. PostgreSQL's text refuses NUL
 *   outright, and C strings (an executor's log line, a mail header) end at it.
 * - A name, title or other one-line field a person reads (app and job names, titles, usernames,
 *   token and alarm channel names, authors, remarks, e-mail and executor addresses) — a schema
 *   marked `ONE_LINE` — is one line of plain text besides: no C0 or C1 control character (CR
 *   and LF forge log lines and mail headers, ESC drives terminals) and no bidirectional
 *   embedding, override or isolate (U+202A–U+202E, U+2066–U+2069), which make
 *   `invoice\u202Efdp.exe` read as `invoiceexe.pdf`.
 *
 * Free text that may span lines (a job's param, a script, alarm settings) keeps its newlines and
 * tabs: only the first rule applies to it.
 */

/**
 * The schema keyword that marks a string as one line (`{ 'x-tickwheel-text': 'one-line' }`). A
 * specification extension: the OpenAPI document shows it, and validators that do not know it
 * ignore it.
 */
export const TEXT_KEYWORD = 'x-tickwheel-text';
export const ONE_LINE = { [TEXT_KEYWORD]: 'one-line' } as const;

/** A string that breaks a rule, where, and why (in the shape errors.ts words validation issues). */
export interface TextIssue {
  keyword: 'text';
  /** JSON pointer of the value, e.g. `/config/to/0`. */
  instancePath: string;
  params: { codePoint: string };
  message: string;
}

interface SchemaNode {
  type?: unknown;
  properties?: Record<string, SchemaNode>;
  items?: SchemaNode;
  anyOf?: SchemaNode[];
  [TEXT_KEYWORD]?: unknown;
}

/** The first string of `value` (walked along `schema` to find the one-line ones) that breaks a rule. */
export function findTextIssue(schema: unknown, value: unknown, path = ''): TextIssue | undefined {
  const node = nodeFor(schema as SchemaNode | undefined, value);
  if (typeof value === 'string') {
    const reason = node?.[TEXT_KEYWORD] === 'one-line' ? oneLineProblem(value) : textProblem(value);
    return reason === undefined ? undefined : issue(path, reason);
  }
  if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) {
      const found = findTextIssue(node?.items, item, `${path}/${i}`);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  for (const [key, item] of Object.entries(value)) {
    const keyReason = textProblem(key);
    if (keyReason !== undefined) return issue(path, { ...keyReason, what: 'has a key that holds' });
    const found = findTextIssue(node?.properties?.[key], item, `${path}/${pointerEscape(key)}`);
    if (found !== undefined) return found;
  }
  return undefined;
}

interface Problem {
  codePoint: number;
  kind: string;
  what?: string;
}

/** A high surrogate without its low one after it, or a low one without its high one before it. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** NUL or a lone surrogate: what no string may hold. */
function textProblem(text: string): Problem | undefined {
  if (text.includes('\0')) return { codePoint: 0, kind: 'NUL' };
  const lone = LONE_SURROGATE.exec(text);
  if (lone === null) return undefined;
  return { codePoint: lone[0].charCodeAt(0), kind: 'a lone surrogate, which is not Unicode text' };
}

/** Besides what `textProblem` refuses, any control or bidirectional formatting character. */
function oneLineProblem(text: string): Problem | undefined {
  const problem = textProblem(text);
  if (problem !== undefined) return problem;
  for (const char of text) {
    const codePoint = char.codePointAt(0)!;
    if (codePoint <= 0x1f || (codePoint >= 0x7f && codePoint <= 0x9f)) {
      return { codePoint, kind: 'a control character; this field is one line of plain text' };
    }
    if ((codePoint >= 0x202a && codePoint <= 0x202e) || (codePoint >= 0x2066 && codePoint <= 0x2069)) {
      return {
        codePoint,
        kind: 'a bidirectional formatting character, which can make text read as other text',
      };
    }
  }
  return undefined;
}

function issue(instancePath: string, problem: Problem): TextIssue {
  const codePoint = `U+${problem.codePoint.toString(16).toUpperCase().padStart(4, '0')}`;
  return {
    keyword: 'text',
    instancePath,
    params: { codePoint },
    message: `${problem.what ?? 'must not contain'} ${codePoint} (${problem.kind})`,
  };
}

/** The schema that describes `value`: of a union (`Nullable`), the member of the value's type. */
function nodeFor(schema: SchemaNode | undefined, value: unknown): SchemaNode | undefined {
  if (schema?.anyOf === undefined) return schema;
  const type = Array.isArray(value) ? 'array' : value === null ? 'null' : typeof value;
  return schema.anyOf.find((member) => member.type === type) ?? schema;
}

function pointerEscape(key: string): string {
  return key.replaceAll('~', '~0').replaceAll('/', '~1');
}

/**
 * Checking a body against a TypeBox schema. The check itself is TypeBox's compiled validator;
 * only when it fails is the schema walked again, in its fields' order, to name the first bad field
 * and the reason in Tickwheel's words (`logId: must be an integer`).
 */
import type { Static, TSchema } from 'typebox';
import { Compile } from 'typebox/compile';
import { type ErrorCode, TickwheelError } from './errors.js';

/** Renders a path of keys and indexes as a field name: `callbackList[2].logId`. */
export function fieldName(path: readonly PropertyKey[], prefix = ''): string {
  let out = prefix;
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else out += out === '' ? String(key) : `.${String(key)}`;
  }
  return out;
}

/**
 * The annotations the walker reads besides JSON Schema's own keywords: the reason given for a
 * string that does not match `pattern` (`patternReason`), and for a key of a record that does not
 * match its key pattern (`keyReason`).
 */
interface Schema {
  type?: string;
  anyOf?: Schema[];
  enum?: readonly unknown[];
  properties?: Record<string, Schema>;
  required?: readonly string[];
  patternProperties?: Record<string, Schema>;
  items?: Schema;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  patternReason?: string;
  keyReason?: string;
}

interface Issue {
  path: PropertyKey[];
  reason: string;
}

/** A compiled check: TypeBox's validator, of which only `Check` is used. */
export interface Checker<T extends TSchema> {
  Check(value: unknown): value is Static<T>;
}

const checkers = new WeakMap<TSchema, Checker<TSchema>>();

/** The compiled check of `schema`, compiled once. */
export function validatorOf<T extends TSchema>(schema: T): Checker<T> {
  let checker = checkers.get(schema);
  if (checker === undefined) {
    checker = Compile(schema) as Checker<TSchema>;
    checkers.set(schema, checker);
  }
  return checker as Checker<T>;
}

/**
 * Checks `input` against `schema` and returns it as the schema's type (as sent: nothing is
 * filled or dropped); on failure throws a TickwheelError naming the first bad field and the
 * reason, e.g. `logId: must be an integer`.
 */
export function parseWith<T extends TSchema>(
  schema: T,
  input: unknown,
  options: { code?: ErrorCode; prefix?: string; what?: string } = {},
): Static<T> {
  if (validatorOf(schema).Check(input)) return input as Static<T>;
  throw invalid(schema, input, options);
}

/** The error for `input`, which `schema`'s check refused. */
export function invalid(
  schema: TSchema,
  input: unknown,
  options: { code?: ErrorCode; prefix?: string; what?: string } = {},
): TickwheelError {
  const issue = firstIssue(schema as Schema, input, []);
  if (!issue) return new TickwheelError(options.code ?? 'TW_ERR_INVALID_FIELD', 'invalid input');
  const field = fieldName(issue.path, options.prefix);
  const message = field === '' ? `${options.what ?? 'body'} ${issue.reason}` : `${field}: ${issue.reason}`;
  return new TickwheelError(options.code ?? 'TW_ERR_INVALID_FIELD', message, field || undefined);
}

/** The first problem of `value` against `schema`, fields in the schema's order. */
function firstIssue(schema: Schema, value: unknown, path: PropertyKey[]): Issue | undefined {
  if (schema.anyOf !== undefined) {
    // A nullable value (X or null) is reported as X; any other union as a whole.
    const others = schema.anyOf.filter((s) => s.type !== 'null');
    if (others.length < schema.anyOf.length && value === null) return undefined;
    if (others.length === 1 && others[0] !== undefined) return firstIssue(others[0], value, path);
    if (others.some((s) => firstIssue(s, value, path) === undefined)) return undefined;
    return { path, reason: 'Invalid input' };
  }
  if (schema.enum !== undefined) {
    if (schema.enum.includes(value)) return undefined;
    return value === undefined
      ? { path, reason: 'is required' }
      : { path, reason: `must be one of ${schema.enum.map((v) => String(v)).join(', ')}` };
  }
  switch (schema.type) {
    case 'object':
      return objectIssue(schema, value, path);
    case 'array': {
      if (!Array.isArray(value)) return typeIssue(value, path, 'an array');
      if (schema.items === undefined) return undefined;
      for (let i = 0; i < value.length; i++) {
        const issue = firstIssue(schema.items, value[i], [...path, i]);
        if (issue) return issue;
      }
      return undefined;
    }
    case 'integer':
      return integerIssue(schema, value, path);
    case 'string':
      return stringIssue(schema, value, path);
    case 'boolean':
      return typeof value === 'boolean' ? undefined : typeIssue(value, path, 'a boolean');
    default:
      return undefined;
  }
}

function objectIssue(schema: Schema, value: unknown, path: PropertyKey[]): Issue | undefined {
  const isRecord = schema.properties === undefined && schema.patternProperties !== undefined;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return typeIssue(value, path, isRecord ? 'a record' : 'an object');
  }
  const object = value as Record<string, unknown>;
  for (const [key, property] of Object.entries(schema.properties ?? {})) {
    const v = object[key];
    if (v === undefined) {
      if (schema.required?.includes(key)) return { path: [...path, key], reason: 'is required' };
      continue;
    }
    const issue = firstIssue(property, v, [...path, key]);
    if (issue) return issue;
  }
  for (const [pattern, property] of Object.entries(schema.patternProperties ?? {})) {
    const keyRule = new RegExp(pattern, 'u');
    for (const key of Object.keys(object)) {
      if (key === '__proto__') continue;
      if (!keyRule.test(key))
        return { path: [...path, key], reason: schema.keyReason ?? 'is not a known key' };
      const issue = firstIssue(property, object[key], [...path, key]);
      if (issue) return issue;
    }
  }
  return undefined;
}

function integerIssue(schema: Schema, value: unknown, path: PropertyKey[]): Issue | undefined {
  if (typeof value !== 'number' || !Number.isFinite(value)) return typeIssue(value, path, 'a number');
  if (!Number.isInteger(value)) return { path, reason: 'must be an integer' };
  // An integer is a safe one before any bound of its own is asked.
  if (value > Number.MAX_SAFE_INTEGER) return { path, reason: `must be <= ${Number.MAX_SAFE_INTEGER}` };
  if (value < Number.MIN_SAFE_INTEGER) return { path, reason: `must be >= ${Number.MIN_SAFE_INTEGER}` };
  if (schema.minimum !== undefined && value < schema.minimum) {
    return { path, reason: `must be >= ${schema.minimum}` };
  }
  if (schema.maximum !== undefined && value > schema.maximum) {
    return { path, reason: `must be <= ${schema.maximum}` };
  }
  return undefined;
}

function stringIssue(schema: Schema, value: unknown, path: PropertyKey[]): Issue | undefined {
  if (typeof value !== 'string') return typeIssue(value, path, 'a string');
  if (schema.minLength !== undefined && value.length < schema.minLength) {
    return { path, reason: 'must not be blank' };
  }
  if (schema.maxLength !== undefined && value.length > schema.maxLength) {
    return { path, reason: `must be at most ${schema.maxLength} characters` };
  }
  if (schema.pattern !== undefined && !new RegExp(schema.pattern, 'u').test(value)) {
    return { path, reason: schema.patternReason ?? `must match ${schema.pattern}` };
  }
  return undefined;
}

function typeIssue(value: unknown, path: PropertyKey[], expected: string): Issue {
  return { path, reason: value === undefined ? 'is required' : `must be ${expected}` };
}

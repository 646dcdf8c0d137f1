/**
 * The REST API's validator compiler: TypeBox's compiled checks, with the errors in ajv's shape
 * (`keyword`, `instancePath`, `params`) that `errors.ts` turns into the envelope. Bodies are
 * checked as sent — a wrong type is an error, never coerced. Path and query values arrive as
 * strings, so they are converted first, strictly: only whole decimal numbers become integers
 * (`1.5` stays a string and fails, where a lenient converter would truncate it to job 1), and a
 * single value of an array parameter becomes a one-item array. Every string is checked against
 * `text-rules.ts` first, so a control character in a name is refused with its own reason rather
 * than as a pattern mismatch.
 */
import type { FastifySchemaCompiler, FastifySchemaValidationError } from 'fastify';
import type { TSchema } from 'typebox';
import { Compile } from 'typebox/compile';
import { findTextIssue } from './text-rules.js';

interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  items?: JsonSchema;
}

export const validatorCompiler: FastifySchemaCompiler<TSchema> = ({ schema, httpPart }) => {
  const validator = Compile(schema);
  return (value: unknown) => {
    const input = httpPart === 'body' ? value : convertStrings(schema as JsonSchema, value);
    const textIssue = findTextIssue(schema, input);
    if (textIssue !== undefined) return { error: [textIssue] as unknown as FastifySchemaValidationError[] };
    if (validator.Check(input)) return { value: input };
    // TypeBox reports ajv's error shape, which is what Fastify's type describes.
    return { error: [...validator.Errors(input)] as unknown as FastifySchemaValidationError[] };
  };
};

function convertStrings(schema: JsonSchema, value: unknown): unknown {
  if (schema.properties === undefined || typeof value !== 'object' || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const [key, raw] of Object.entries(value)) {
    const property = schema.properties[key];
    out[key] = property === undefined ? raw : convertValue(property, raw);
  }
  return out;
}

function convertValue(schema: JsonSchema, raw: unknown): unknown {
  if (schema.type === 'array') {
    const items = Array.isArray(raw) ? raw : [raw];
    return schema.items === undefined ? items : items.map((item) => convertValue(schema.items!, item));
  }
  if (schema.type === 'integer' && typeof raw === 'string' && /^-?\d+$/.test(raw)) return Number(raw);
  return raw;
}

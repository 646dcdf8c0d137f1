/**
 * The REST API's request bodies: JSON only, up to LIMITS.bodyBytes, and without the keys that
 * reach an object's prototype. `JSON.parse` itself keeps `"__proto__"` as a plain own property,
 * but any code that later copies it with assignment (`Object.assign`, a merge) would set the
 * prototype instead: a body naming `__proto__`, `constructor` or `prototype` anywhere is refused
 * with the key's path (no operation has a field of those names, nor does any alarm setting).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { invalidField } from './errors.js';
import { LIMITS } from './schemas.js';

const RESERVED_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

/**
 * Replaces `api`'s body parsers with the JSON one. An empty body is no body (so
 * `POST .../start` with a JSON content type and nothing else works).
 */
export function useJsonBodies(api: FastifyInstance): void {
  // Parsed as plain JSON; the reserved keys are looked for below, so each is named in the answer.
  const parseJson = api.getDefaultJsonParser('ignore', 'ignore');
  api.removeAllContentTypeParsers();
  api.addContentTypeParser(
    'application/json',
    { parseAs: 'string', bodyLimit: LIMITS.bodyBytes },
    (request: FastifyRequest, body: string | Buffer, done) => {
      if (String(body).trim() === '') {
        done(null, undefined);
        return;
      }
      parseJson(request, String(body), (err, value) => {
        if (err !== null) {
          done(err, undefined);
          return;
        }
        const reserved = reservedKeyPath(value);
        if (reserved === undefined) done(null, value);
        else done(invalidField(reserved, `${reserved}: ${RESERVED_REASON}`), undefined);
      });
    },
  );
}

const RESERVED_REASON =
  'is not accepted: __proto__, constructor and prototype are reserved keys, which could change the prototype of every object';

/** The path (`config.__proto__`, `items[2].constructor`) of the first reserved key in `value`. */
function reservedKeyPath(value: unknown, path = ''): string | undefined {
  if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) {
      const found = reservedKeyPath(item, `${path}[${i}]`);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  for (const [key, item] of Object.entries(value)) {
    const keyPath = path === '' ? key : `${path}.${key}`;
    if (RESERVED_KEYS.has(key)) return keyPath;
    const found = reservedKeyPath(item, keyPath);
    if (found !== undefined) return found;
  }
  return undefined;
}

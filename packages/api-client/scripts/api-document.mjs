/**
 * The REST API's OpenAPI document, read from a real server: started on loopback with a
 * throw-away SQLite store, asked for /api/v1/openapi.json, stopped.
 */

import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createServer } from '@tickwheel/server';

export async function readApiDocument() {
  const apiToken = randomBytes(24).toString('hex');
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'tw-api-client-'));
  const server = await createServer({
    host: '127.0.0.1',
    port: 0,
    dataDir,
    apiToken,
    logLevel: 'warn',
  });
  try {
    const response = await fetch(new URL('api/v1/openapi.json', server.url), {
      headers: { authorization: `Bearer ${apiToken}` },
    });
    if (!response.ok) throw new Error(`openapi.json: HTTP ${response.status}`);
    return await response.json();
  } finally {
    await server.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

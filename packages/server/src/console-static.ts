/**
 * The web console at `/`: the built single-page app's files, with hashed assets cached for a
 * year and everything else (`index.html`) revalidated on every load; the brotli or gzip copy the
 * build wrote beside each file goes to browsers that accept it. A GET for a page path the app
 * routes itself (`/jobs/12`, `/fires`) gets `index.html`; the APIs' unknown paths stay their own 404s.
 * Its answers carry the console's Content-Security-Policy (security/http-headers.ts), made at
 * start from the build's `index.html`.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';
import { consoleContentSecurityPolicy } from './security/http-headers.js';

/** Paths the console never owns: the REST and executor APIs and the operations endpoints. */
const NOT_CONSOLE = /^\/(?:api|metrics|healthz|readyz)(?:[/?]|$)/;
const IMMUTABLE = 'public, max-age=31536000, immutable';

export async function registerConsole(app: FastifyInstance, dir: string): Promise<void> {
  const contentSecurityPolicy = consoleContentSecurityPolicy(
    await readFile(path.join(dir, 'index.html'), 'utf8'),
  );
  await app.register(async (scope) => {
    // Set here rather than by the static plugin, whose pre-compressed path drops its own cache headers.
    scope.addHook('onSend', async (request, reply, payload) => {
      // The page's policy on the page only: the 404 an API path gets through the fallback below
      // passes here too, and keeps the API's.
      if (String(reply.getHeader('content-type')).startsWith('text/html')) {
        reply.header('content-security-policy', contentSecurityPolicy);
      }
      reply.header(
        'cache-control',
        request.url.startsWith('/assets/') && reply.statusCode === 200 ? IMMUTABLE : 'no-cache',
      );
      return payload;
    });
    await scope.register(fastifyStatic, {
      root: dir,
      prefix: '/',
      // Routes for the files that exist at start (the build is immutable), so unknown paths fall through.
      wildcard: false,
      // `/` is the catch-all's below: the plugin's own index route answers 404 to a request that
      // accepts brotli when preCompressed is on.
      index: false,
      preCompressed: true,
      cacheControl: false,
    });
    scope.get('/*', async (request, reply) => {
      if (NOT_CONSOLE.test(request.url)) return reply.callNotFound();
      return reply.sendFile('index.html');
    });
  });
}

/**
 * The web console at `/`: the built single-page app's files, with hashed assets cached for a
 * year and `index.html` revalidated on every load. A GET for a page path the app routes itself
 * (`/jobs/12`, `/fires`) gets `index.html`; the APIs' unknown paths stay their own 404s.
 */
import path from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';

/** Paths the console never owns: the REST and executor APIs and the operations endpoints. */
const NOT_CONSOLE = /^\/(?:api|metrics|healthz|readyz)(?:[/?]|$)/;

export async function registerConsole(app: FastifyInstance, dir: string): Promise<void> {
  await app.register(fastifyStatic, {
    root: dir,
    prefix: '/',
    // Routes for the files that exist at start (the build is immutable), so unknown paths fall through.
    wildcard: false,
    index: 'index.html',
    setHeaders(res, filePath) {
      const immutable = path.relative(dir, filePath).startsWith(`assets${path.sep}`);
      res.setHeader('cache-control', immutable ? 'public, max-age=31536000, immutable' : 'no-cache');
    },
  });
  app.get('/*', async (request, reply) => {
    if (NOT_CONSOLE.test(request.url)) return reply.callNotFound();
    return reply.header('cache-control', 'no-cache').sendFile('index.html');
  });
}

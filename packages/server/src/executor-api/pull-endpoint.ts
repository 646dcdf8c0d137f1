/**
 * The HTTP side of the `http-pull` transport (protocol pull.ts):
 *
 * - `GET /api/pull`, upgraded to a WebSocket (the `ws` package with `noServer`, on the Fastify
 *   server's `upgrade` event): a pull executor's connection. It is authenticated before the
 *   upgrade as `api/registry` authenticates: `XXL-JOB-ACCESS-TOKEN` must be the token of the app
 *   named by `XXL-JOB-APPNAME` (the installation token for an app in compatibility mode, or a
 *   name no app has), and `Tickwheel-Instance` a well-formed instance id. A refusal is an HTTP
 *   answer with a ReturnT body naming why: 401 for the token (the registry's messages), 400 for
 *   a missing app name or instance. The connection is then handed to {@link PullConnections}.
 * - `POST /api/pull-relay`: another server node's call to a pull executor connected here
 *   (`{address, call, body, timeoutMs}`, answered with the executor's answer frame or
 *   `{t:'failure', failure, msg}`). Only the cluster's nodes may call it: the
 *   `Tickwheel-Node-Token` header must hold the installation-wide executor token (compared in
 *   constant time); anything else is answered 401.
 */
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import {
  ACCESS_TOKEN_HEADER,
  APP_NAME_HEADER,
  INSTANCE_HEADER,
  isInstanceId,
  JSON_CONTENT_TYPE,
  MAX_INSTANCE_ID_LENGTH,
  MAX_PULL_FRAME_BYTES,
  MAX_REGISTRY_KEY_LENGTH,
  PULL_PATH,
  type PullCall,
  returnFail,
  WireMessages,
} from '@tickwheel/protocol';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { WebSocketServer } from 'ws';
import {
  PULL_RELAY_PATH,
  PULL_RELAY_TOKEN_HEADER,
  type PullConnections,
  type PullRelayRequest,
  relayAnswerOf,
} from '../dispatch/pull-connections.js';
import type { AppCredentials } from './app-credentials.js';
import { AuthFailureLog } from './auth-failures.js';

export interface PullEndpointDeps {
  credentials: Pick<AppCredentials, 'scopeOf' | 'mayActFor'>;
  pulls: Pick<PullConnections, 'attach' | 'serveRelay' | 'isRelayToken'>;
  clock: { now(): number };
  logger: Pick<Logger, 'warn' | 'info' | 'debug' | 'error'>;
  metrics?: { authFailure(path: string): void };
}

const PULL_URL_PATH = `/${PULL_PATH}`;
const RELAY_URL_PATH = `/${PULL_RELAY_PATH}`;
const ACCESS_TOKEN_HEADER_LOWER = ACCESS_TOKEN_HEADER.toLowerCase();
const APP_NAME_HEADER_LOWER = APP_NAME_HEADER.toLowerCase();
const INSTANCE_HEADER_LOWER = INSTANCE_HEADER.toLowerCase();
const RELAY_TOKEN_HEADER_LOWER = PULL_RELAY_TOKEN_HEADER.toLowerCase();
const PULL_CALLS: ReadonlySet<string> = new Set<PullCall>([
  'beat',
  'idleBeat',
  'run',
  'runBatch',
  'kill',
  'log',
]);
/** The longest timeout a relay may ask for. */
const MAX_RELAY_TIMEOUT_MS = 600_000;

/** Adds `GET /api/pull` (WebSocket) and `POST /api/pull-relay` to the server's HTTP server. */
export function registerPullEndpoint(app: FastifyInstance, deps: PullEndpointDeps): void {
  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: MAX_PULL_FRAME_BYTES,
    perMessageDeflate: false,
  });
  const authFailures = new AuthFailureLog({ clock: deps.clock, logger: deps.logger });

  app.server.on('upgrade', (request, socket: Duplex, head: Buffer) => {
    socket.on('error', () => socket.destroy());
    const path = (request.url ?? '').split('?')[0];
    if (path !== PULL_URL_PATH) {
      refuse(socket, 404, `invalid request, uri-mapping(${path}) not found.`);
      return;
    }
    void (async () => {
      const headers = request.headers;
      const scope = await deps.credentials.scopeOf(headers[ACCESS_TOKEN_HEADER_LOWER]);
      if (scope === undefined) {
        deps.metrics?.authFailure(PULL_URL_PATH);
        authFailures.record(request.socket.remoteAddress ?? 'unknown', PULL_URL_PATH);
        refuse(socket, 401, WireMessages.wrongToken);
        return;
      }
      const appName = headers[APP_NAME_HEADER_LOWER];
      if (typeof appName !== 'string' || appName.trim() === '' || appName.length > MAX_REGISTRY_KEY_LENGTH) {
        refuse(socket, 400, WireMessages.appNameMissing);
        return;
      }
      if (!(await deps.credentials.mayActFor(scope, appName))) {
        deps.logger.warn(
          { app: appName, token: scope.kind === 'app' ? scope.appName : 'installation' },
          'pull connection refused: its access token does not belong to the app it names',
        );
        refuse(socket, 401, WireMessages.wrongAppToken(appName));
        return;
      }
      const instance = headers[INSTANCE_HEADER_LOWER];
      if (!isInstanceId(instance)) {
        refuse(
          socket,
          400,
          `${INSTANCE_HEADER}: must be 1 to ${MAX_INSTANCE_ID_LENGTH} characters of letters, digits, '.', '_', ':' and '-'`,
        );
        return;
      }
      if (socket.destroyed) return;
      wss.handleUpgrade(request, socket, head, (ws) => deps.pulls.attach(ws, instance, appName));
    })().catch((err) => {
      deps.logger.error({ err }, 'pull connection could not be accepted');
      refuse(socket, 500, `server error: ${(err as Error).message}`);
    });
  });

  app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser(
      '*',
      { parseAs: 'buffer', bodyLimit: MAX_PULL_FRAME_BYTES + 64 * 1024 },
      (_req, body, done) => done(null, body),
    );
    scope.post(RELAY_URL_PATH, { bodyLimit: MAX_PULL_FRAME_BYTES + 64 * 1024 }, async (request, reply) => {
      const token = request.headers[RELAY_TOKEN_HEADER_LOWER];
      if (typeof token !== 'string' || !deps.pulls.isRelayToken(token)) {
        deps.metrics?.authFailure(RELAY_URL_PATH);
        authFailures.record(request.ip, RELAY_URL_PATH);
        return reply
          .code(401)
          .type(JSON_CONTENT_TYPE)
          .send(JSON.stringify(returnFail(WireMessages.wrongToken)));
      }
      const relayed = relayRequestOf(request.body);
      if (relayed === undefined) {
        return reply
          .code(400)
          .type(JSON_CONTENT_TYPE)
          .send(JSON.stringify(returnFail(WireMessages.illegalArgument)));
      }
      const result = await deps.pulls.serveRelay(relayed);
      return reply
        .code(200)
        .type(JSON_CONTENT_TYPE)
        .send(JSON.stringify(relayAnswerOf(result)));
    });
  });
}

/** Answers an upgrade request with an HTTP error and a ReturnT body, and closes the socket. */
function refuse(socket: Duplex, status: number, msg: string): void {
  if (socket.destroyed) return;
  const body = JSON.stringify(returnFail(msg));
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\n` +
      `Content-Type: ${JSON_CONTENT_TYPE}\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      'Connection: close\r\n\r\n' +
      body,
  );
}

function relayRequestOf(body: unknown): PullRelayRequest | undefined {
  let value: unknown;
  try {
    value = JSON.parse((body as Buffer | undefined)?.toString('utf8') ?? '');
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const v = value as Record<string, unknown>;
  if (typeof v.address !== 'string' || typeof v.call !== 'string' || !PULL_CALLS.has(v.call))
    return undefined;
  if (
    !Number.isInteger(v.timeoutMs) ||
    (v.timeoutMs as number) < 1 ||
    (v.timeoutMs as number) > MAX_RELAY_TIMEOUT_MS
  ) {
    return undefined;
  }
  return { address: v.address, call: v.call as PullCall, body: v.body, timeoutMs: v.timeoutMs as number };
}

/**
 * The executor's HTTP endpoint: the server's calls of PROTOCOL.md (`beat`, `idleBeat`, `run` /
 * `trigger`, `kill`, `log`), matched exactly as XXL-JOB matches them, behind the access token.
 * Every answer is HTTP 200 with a ReturnT body carrying its payload under `content` and `data`.
 *
 * In G4 (XXL-JOB 3.5) every call must carry the `XXL-JOB-APPNAME` header too, as a 3.5 executor
 * requires: a server that calls it the 2.x way is refused, not silently served.
 *
 * Tickwheel's own `runBatch` takes many triggers in one request (a server under load sends the
 * runs of one turn together): each is decided exactly as its own `run` would be, in order, and
 * the answer lists their ReturnT codes and messages. Every answer announces it in the
 * `Tickwheel-Run-Batch` header, so a Tickwheel server learns which executors take batches from
 * their ordinary answers; XXL-JOB servers ignore the header and never call the path.
 *
 * Every answer also carries `Tickwheel-Kill: logId`: this executor's `kill` takes an optional
 * `logId` and then stops only that run, so a Tickwheel server can kill one queued run without
 * stopping the job's running one.
 *
 * And, when given one, `Tickwheel-Instance: <id>`: the id this executor process made at start, so
 * a Tickwheel server records which run of the process accepted each run (and fails the runs of
 * an instance that restarted at the same address; PROTOCOL.md's extensions, docs/executor.md).
 *
 * The endpoint only checks a request and reads its body; the call itself is answered by the
 * executor's call answerer (calls.ts), the same one its http-pull connection uses.
 */
import { hash, timingSafeEqual } from 'node:crypto';
import type http from 'node:http';
import {
  APP_NAME_HEADER,
  INSTANCE_HEADER,
  JSON_CONTENT_TYPE,
  KILL_RUN_BY_LOG_ID,
  KILL_RUN_HEADER,
  MAX_BODY_BYTES,
  MAX_RUN_BATCH,
  type ReturnT,
  RUN_BATCH_HEADER,
  returnFail,
  TickwheelError,
  WireMessages,
} from '@tickwheel/protocol';
import type { Logger } from 'pino';
import type { CallAnswerer, CallName } from './calls.js';

export interface EndpointOptions {
  /** undefined only for an executor started `insecure`. */
  accessToken: string | undefined;
  /** Answers each call once the request has passed the method, token and path checks. */
  answerCall: CallAnswerer;
  logger: Logger;
  maxBodyBytes?: number;
  /**
   * Refuse a call without the `XXL-JOB-APPNAME` header, as an XXL-JOB 3.5 executor does (the
   * executor speaks G4). Default false.
   */
  requireAppName?: boolean;
  /** Announced on every answer in the `Tickwheel-Instance` header. Default none (no header). */
  instance?: string;
}

/** Serves one request whose call path (the URL after the mount prefix) is `callPath`. */
export type Endpoint = (req: http.IncomingMessage, res: http.ServerResponse, callPath: string) => void;

/** Exact paths; G4 servers send `trigger` where older ones send `run`. */
const CALL_PATHS: Readonly<Record<string, CallName>> = {
  '/beat': 'beat',
  '/idleBeat': 'idleBeat',
  '/run': 'run',
  '/trigger': 'run',
  '/runBatch': 'runBatch',
  '/kill': 'kill',
  '/log': 'log',
};

const ACCESS_TOKEN_HEADER_LOWER = 'xxl-job-access-token';
const APP_NAME_HEADER_LOWER = APP_NAME_HEADER.toLowerCase();

export function createEndpoint(options: EndpointOptions): Endpoint {
  const maxBodyBytes = options.maxBodyBytes ?? MAX_BODY_BYTES;
  const expectedDigest = options.accessToken === undefined ? undefined : digest(options.accessToken);
  const own: Record<string, string> =
    options.instance === undefined ? {} : { [INSTANCE_HEADER]: options.instance };
  const answer = (res: http.ServerResponse, body: ReturnT<unknown>, headers: Record<string, string> = {}) =>
    answerWith(res, body, { ...own, ...headers });
  const answerTooLarge = (req: http.IncomingMessage, res: http.ServerResponse, maxBodyBytes: number) =>
    answerTooLargeWith(answer, req, res, maxBodyBytes);
  return (req, res, callPath) => {
    serve(req, res, callPath).catch((err: unknown) => {
      options.logger.error({ err, callPath }, 'executor endpoint failed to answer');
      if (!res.headersSent) answer(res, returnFail(`executor error: ${(err as Error).message}`));
      else res.destroy();
    });
  };

  async function serve(req: http.IncomingMessage, res: http.ServerResponse, callPath: string): Promise<void> {
    // The order of checks is XXL-JOB's: method, token, path, then the body.
    if (req.method !== 'POST') return answer(res, returnFail(WireMessages.methodNotSupported));
    if (!tokenMatches(expectedDigest, req.headers[ACCESS_TOKEN_HEADER_LOWER])) {
      return answer(res, returnFail(WireMessages.wrongToken));
    }
    if (options.requireAppName && !hasAppName(req.headers[APP_NAME_HEADER_LOWER])) {
      return answer(res, returnFail(WireMessages.appNameMissing));
    }
    const call = Object.hasOwn(CALL_PATHS, callPath) ? CALL_PATHS[callPath] : undefined;
    if (!call) return answer(res, returnFail(WireMessages.uriNotFound(callPath)));
    const body = await readBody(req, maxBodyBytes);
    if (body.kind === 'too-large') return answerTooLarge(req, res, maxBodyBytes);
    answer(
      res,
      await options.answerCall(call, () => (body.kind === 'parsed' ? body.value : parseJson(body.text))),
    );
  }
}

const RUN_BATCH_LIMIT = String(MAX_RUN_BATCH);

function answerWith(
  res: http.ServerResponse,
  body: ReturnT<unknown>,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  res.writeHead(200, {
    'Content-Type': JSON_CONTENT_TYPE,
    'Content-Length': Buffer.byteLength(text),
    [RUN_BATCH_HEADER]: RUN_BATCH_LIMIT,
    [KILL_RUN_HEADER]: KILL_RUN_BY_LOG_ID,
    ...headers,
  });
  res.end(text);
}

/**
 * Refuses an oversized body without reading the rest into memory: the answer closes the
 * connection, the remaining bytes are discarded as they come, and a client that keeps sending
 * long after the answer is cut off.
 */
function answerTooLargeWith(
  answer: (res: http.ServerResponse, body: ReturnT<unknown>, headers: Record<string, string>) => void,
  req: http.IncomingMessage,
  res: http.ServerResponse,
  maxBodyBytes: number,
): void {
  answer(res, returnFail(`invalid request, body larger than ${maxBodyBytes} bytes.`), {
    Connection: 'close',
  });
  req.resume();
  res.on('finish', () => {
    if (!req.complete) setTimeout(() => req.destroy(), 1_000).unref();
  });
}

function digest(token: string): Buffer {
  return hash('sha256', token, 'buffer');
}

/** Compares digests, so the comparison takes the same time whatever the lengths. */
function tokenMatches(expected: Buffer | undefined, header: string | string[] | undefined): boolean {
  if (expected === undefined) return true;
  const given = typeof header === 'string' ? header : '';
  return timingSafeEqual(expected, digest(given));
}

type Body = { kind: 'text'; text: string } | { kind: 'parsed'; value: unknown } | { kind: 'too-large' };

/**
 * Reads the body up to `maxBodyBytes`. Behind Express or Fastify a body parser may have read
 * the stream already; its parsed `req.body` is used then.
 */
async function readBody(req: http.IncomingMessage, maxBodyBytes: number): Promise<Body> {
  const preParsed = (req as { body?: unknown }).body;
  if (req.readableEnded && preParsed !== undefined) {
    if (typeof preParsed === 'string') return { kind: 'text', text: preParsed };
    if (Buffer.isBuffer(preParsed)) return { kind: 'text', text: preParsed.toString('utf8') };
    return { kind: 'parsed', value: preParsed };
  }
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBodyBytes) return { kind: 'too-large' };
  return new Promise<Body>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBodyBytes) {
        cleanup();
        chunks.length = 0;
        resolve({ kind: 'too-large' });
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      cleanup();
      resolve({ kind: 'text', text: Buffer.concat(chunks).toString('utf8') });
    };
    const onError = (err: Error) => {
      cleanup();
      reject(err);
    };
    const cleanup = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
  });
}

function parseJson(text: string): unknown {
  if (!/\S/.test(text)) return null;
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new TickwheelError(
      'TW_ERR_INVALID_JSON',
      `invalid request, malformed JSON body: ${(err as Error).message}`,
    );
  }
}

function hasAppName(header: string | string[] | undefined): boolean {
  return typeof header === 'string' && header.trim() !== '';
}

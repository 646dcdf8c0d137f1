/**
 * Real receivers on loopback for the alarm suites: an SMTP server (the `smtp-server` package)
 * that keeps every message it is given, and an HTTP server that keeps every request with its raw
 * body and answers as the test says (a robot's `{"errcode": 0}`, a 503, or nothing at all).
 */
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  /** MAIL FROM. */
  from: string;
  /** RCPT TO, in order. */
  recipients: string[];
  /** Who logged in (undefined: no AUTH). */
  user: string | undefined;
  subject: string;
  /** The text body, transfer encoding undone. */
  text: string;
  headers: Record<string, string>;
}

export interface SmtpReceiver {
  port: number;
  mails: ReceivedMail[];
  close(): Promise<void>;
}

/** An SMTP server on 127.0.0.1 without TLS; with `auth`, only that login is accepted. */
export async function startSmtpReceiver(auth?: {
  username: string;
  password: string;
}): Promise<SmtpReceiver> {
  const mails: ReceivedMail[] = [];
  const server = new SMTPServer({
    secure: false,
    disabledCommands: auth === undefined ? ['STARTTLS', 'AUTH'] : ['STARTTLS'],
    allowInsecureAuth: true,
    authOptional: auth === undefined,
    logger: false,
    onAuth(login, _session, callback) {
      if (auth !== undefined && login.username === auth.username && login.password === auth.password) {
        callback(null, { user: login.username });
      } else {
        callback(new Error('Invalid username or password'));
      }
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        const parsed = parseMail(raw);
        mails.push({
          from: session.envelope.mailFrom === false ? '' : session.envelope.mailFrom.address,
          recipients: session.envelope.rcptTo.map((rcpt) => rcpt.address),
          user: typeof session.user === 'string' ? session.user : undefined,
          ...parsed,
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as AddressInfo).port;
  return {
    port,
    mails,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Splits a message into headers and a decoded text body (quoted-printable, base64 or plain). */
function parseMail(raw: string): { subject: string; text: string; headers: Record<string, string> } {
  const split = raw.indexOf('\r\n\r\n');
  const head = raw.slice(0, split).replace(/\r\n[ \t]+/g, ' ');
  const body = raw.slice(split + 4);
  const headers: Record<string, string> = {};
  for (const line of head.split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
  }
  const encoding = (headers['content-transfer-encoding'] ?? '').toLowerCase();
  let text = body;
  if (encoding === 'quoted-printable') {
    const bytes = body
      .replace(/=\r?\n/g, '')
      .replace(/=([0-9A-F]{2})/gi, (_m, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
    text = Buffer.from(bytes, 'latin1').toString('utf8');
  } else if (encoding === 'base64') {
    text = Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8');
  }
  return {
    subject: decodeWords(headers.subject ?? ''),
    text: text.replace(/\r\n/g, '\n').trimEnd(),
    headers,
  };
}

/** RFC 2047 encoded words (`=?UTF-8?Q?...?=`, `=?UTF-8?B?...?=`) in a header. */
function decodeWords(value: string): string {
  return value
    .replace(/\?=\s+=\?/g, '?==?')
    .replace(/=\?([^?]+)\?([QqBb])\?([^?]*)\?=/g, (_m, _charset: string, kind: string, data: string) => {
      if (kind.toUpperCase() === 'B') return Buffer.from(data, 'base64').toString('utf8');
      const bytes = data
        .replace(/_/g, ' ')
        .replace(/=([0-9A-F]{2})/gi, (_x, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
      return Buffer.from(bytes, 'latin1').toString('utf8');
    });
}

export interface ReceivedRequest {
  method: string;
  /** Path and query, as sent. */
  url: string;
  headers: IncomingHttpHeaders;
  /** The body exactly as the bytes came (what signatures are checked over). */
  rawBody: string;
  /** The body parsed (JSON.parse's own type, so a test reads fields without casts); undefined when not JSON. */
  json: ReturnType<typeof JSON.parse>;
  receivedAt: number;
}

/** How to answer one request: a status and a JSON body, or `hang` to never answer. */
export type Answer = { status?: number; body?: unknown } | 'hang';

export interface HttpReceiver {
  /** `http://127.0.0.1:<port>`. */
  url: string;
  requests: ReceivedRequest[];
  /** Decides each answer; default `{ status: 200, body: { errcode: 0, errmsg: 'ok' } }`. */
  answer: (request: ReceivedRequest) => Answer;
  close(): Promise<void>;
}

export async function startHttpReceiver(
  answer?: (request: ReceivedRequest) => Answer,
): Promise<HttpReceiver> {
  const hanging = new Set<ServerResponse>();
  const receiver: HttpReceiver = {
    url: '',
    requests: [],
    answer: answer ?? (() => ({ status: 200, body: { errcode: 0, errmsg: 'ok' } })),
    close: async () => {},
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const rawBody = Buffer.concat(chunks).toString('utf8');
      let json: ReturnType<typeof JSON.parse>;
      try {
        json = JSON.parse(rawBody);
      } catch {
        json = undefined;
      }
      const request: ReceivedRequest = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        rawBody,
        json,
        receivedAt: Date.now(),
      };
      receiver.requests.push(request);
      const decided = receiver.answer(request);
      if (decided === 'hang') {
        hanging.add(res);
        return;
      }
      res.writeHead(decided.status ?? 200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(decided.body ?? {}));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  receiver.close = async () => {
    for (const res of hanging) res.destroy();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return receiver;
}

/**
 * E-mail over SMTP (nodemailer). The recipients are the job's `alarmEmail` addresses (what
 * XXL-JOB users already fill in) plus the channel's own `to` list; the subject is the alarm's
 * title and the body its plain text. One connection per alarm: alarms are rare, and a pooled
 * connection would hold a socket to the relay for nothing.
 *
 * `security`: `STARTTLS` (default, port 587) upgrades the connection and refuses a server that
 * cannot; `TLS` (port 465) speaks TLS from the first byte; `NONE` (port 25) never upgrades, for
 * a relay on the same host or network.
 */
import nodemailer from 'nodemailer';
import { type Static, Type } from 'typebox';
import { type AlarmMessage, renderText } from './alarm-message.js';
import { AlarmSendError } from './alarm-send-error.js';
import type { AlarmChannelKind } from './channel.js';

const DEFAULT_PORTS = { TLS: 465, STARTTLS: 587, NONE: 25 } as const;
/** SMTP's own timeouts, above any send timeout the queue sets, which aborts the send first. */
const SMTP_TIMEOUT_MS = 60_000;

const Address = Type.String({ minLength: 3, maxLength: 320, pattern: '^[^\\s@,;]+@[^\\s@,;]+$' });

export const EmailConfig = Type.Object(
  {
    host: Type.String({ minLength: 1, maxLength: 255, description: 'The SMTP server' }),
    port: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 65_535,
        description: 'Default 587 (STARTTLS), 465 (TLS), 25 (NONE)',
      }),
    ),
    security: Type.Optional(Type.Enum(['STARTTLS', 'TLS', 'NONE'], { default: 'STARTTLS' })),
    username: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
    password: Type.Optional(Type.String({ minLength: 1, maxLength: 1024 })),
    from: Type.String({
      minLength: 3,
      maxLength: 320,
      description: 'The sender, `alarms@example.com` or `Tickwheel <alarms@example.com>`',
    }),
    to: Type.Optional(
      Type.Array(Address, { maxItems: 100, description: 'Addresses that get every alarm of this channel' }),
    ),
    rejectUnauthorized: Type.Optional(
      Type.Boolean({
        default: true,
        description: "false accepts a server certificate that does not verify (a relay's self-signed one)",
      }),
    ),
  },
  { additionalProperties: false },
);
export type EmailConfig = Static<typeof EmailConfig>;

export const emailChannel: AlarmChannelKind<EmailConfig> = {
  type: 'EMAIL',
  configSchema: EmailConfig,
  secretFields: ['password'],
  urlFields: [],
  async send(message, config, context) {
    const recipients = recipientsOf(message, config);
    if (recipients.length === 0) {
      throw new AlarmSendError(
        "no recipient: the job's alarmEmail is empty and the channel has no `to` addresses",
        { retryable: false },
      );
    }
    const security = config.security ?? 'STARTTLS';
    const transport = nodemailer.createTransport({
      host: config.host,
      port: config.port ?? DEFAULT_PORTS[security],
      secure: security === 'TLS',
      requireTLS: security === 'STARTTLS',
      ignoreTLS: security === 'NONE',
      ...(config.username === undefined
        ? {}
        : { auth: { user: config.username, pass: config.password ?? '' } }),
      tls: { rejectUnauthorized: config.rejectUnauthorized !== false },
      connectionTimeout: SMTP_TIMEOUT_MS,
      greetingTimeout: SMTP_TIMEOUT_MS,
      socketTimeout: SMTP_TIMEOUT_MS,
    });
    try {
      await transport.sendMail({
        from: config.from,
        to: recipients,
        subject: message.title,
        text: renderText(message),
        signal: context.signal,
        headers: { 'X-Tickwheel-Delivery': context.deliveryId },
      });
    } catch (err) {
      throw smtpError(err, context.signal);
    } finally {
      transport.close();
    }
  },
};

/** The job's addresses, then the channel's, each once. */
export function recipientsOf(message: AlarmMessage, config: EmailConfig): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const address of [...message.emailRecipients, ...(config.to ?? [])]) {
    const key = address.toLowerCase();
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(address);
  }
  return out;
}

/**
 * A 5xx reply (mailbox unknown, relay refused) or a refused login will not pass on a retry;
 * a timeout, a dropped connection or a 4xx (greylisting, busy) may.
 */
function smtpError(err: unknown, signal: AbortSignal): AlarmSendError {
  const e = err as { code?: string; responseCode?: number; message?: string };
  if (signal.aborted) {
    const timedOut = (signal.reason as { name?: string } | undefined)?.name === 'TimeoutError';
    return new AlarmSendError(`SMTP ${timedOut ? 'timed out' : 'send aborted'}`, {
      retryable: true,
      cause: err,
    });
  }
  const permanent = e.code === 'EAUTH' || (e.responseCode !== undefined && e.responseCode >= 500);
  return new AlarmSendError(`SMTP: ${e.message ?? String(err)}`, { retryable: !permanent, cause: err });
}

/**
 * E-mail over SMTP (nodemailer). The recipients are the job's `alarmEmail` addresses (what
 * XXL-JOB users already fill in) plus the channel's own `to` list; the subject is the alarm's
 * title and the body its plain text. One connection per alarm: alarms are rare, and a pooled
 * connection would hold a socket to the relay for nothing.
 *
 * `security`: `STARTTLS` (default, port 587) upgrades the connection and refuses a server that
 * cannot; `TLS` (port 465) speaks TLS from the first byte; `NONE` (port 25) never upgrades, for
 * a relay on the same host or network.
 *
 * Who decides where alarm mail goes: admins, who alone edit channels — the channel's `to`, and
 * its `recipientDomains`, the domains a job's `alarmEmail` addresses may be in (by default the
 * domain of `from`; `["*"]` for any). A job's address outside them is not mailed by the channel
 * (and `createJob`/`updateJob` refuse it when no channel would mail it). Every address, `from`
 * included, is one mailbox without control characters (email-address.ts), and the relay is
 * connected to by the server's network rules, at the address they checked.
 */
import { isIP } from 'node:net';
import nodemailer from 'nodemailer';
import { type Static, Type } from 'typebox';
import { DeniedAddressError, type NetworkRules } from '../security/network-rules.js';
import { type AlarmMessage, renderText } from './alarm-message.js';
import { AlarmSendError } from './alarm-send-error.js';
import type { AlarmChannelKind, ConfigProblem } from './channel.js';
import {
  inRecipientDomains,
  isMailAddress,
  isRecipientDomain,
  recipientDomainsOf,
  senderAddress,
} from './email-address.js';

const DEFAULT_PORTS = { TLS: 465, STARTTLS: 587, NONE: 25 } as const;
/** SMTP's own timeouts, above any send timeout the queue sets, which aborts the send first. */
const SMTP_TIMEOUT_MS = 60_000;

const Address = Type.String({ minLength: 3, maxLength: 320, description: 'One address: ops@example.com' });

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
    recipientDomains: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 255 }), {
        maxItems: 100,
        description:
          "Domains (and their subdomains) a job's alarmEmail addresses are mailed in; `*` for any. Default: the domain of `from`",
      }),
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
  hostFields: ['host'],
  checkConfig: emailConfigProblem,
  async send(message, config, context) {
    // First: a stored `from` that is no address has no domain, so every job's address would
    // read as outside the recipient domains, and the error would blame the addresses.
    const problem = emailConfigProblem(config);
    if (problem !== undefined) {
      throw new AlarmSendError(`the stored config.${problem.field}: ${problem.message}`, {
        retryable: false,
      });
    }
    const { recipients, outside } = recipientsOf(message, config);
    if (recipients.length === 0) {
      throw new AlarmSendError(
        outside.length === 0
          ? "no recipient: the job's alarmEmail is empty and the channel has no `to` addresses"
          : `no recipient: ${outside.join(', ')} ${outside.length === 1 ? 'is' : 'are'} outside the channel's recipient domains (${recipientDomainsOf(config).join(', ') || 'none'}) and it has no \`to\` addresses`,
        { retryable: false },
      );
    }
    const relay = await relayAddress(config.host, context.networkRules);
    const security = config.security ?? 'STARTTLS';
    const transport = nodemailer.createTransport({
      // The address the network rules allowed, so a DNS answer changing after the check does not count.
      host: relay,
      ...(isIP(config.host) === 0 ? { servername: config.host } : {}),
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
        subject: oneLine(message.title),
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

/**
 * The job's addresses within the channel's recipient domains, then the channel's own, each once;
 * and the job's addresses left out (`outside`). A stored address that is no single address (a row
 * written before the API checked) is left out too.
 */
export function recipientsOf(
  message: AlarmMessage,
  config: EmailConfig,
): { recipients: string[]; outside: string[] } {
  const domains = recipientDomainsOf(config);
  const seen = new Set<string>();
  const recipients: string[] = [];
  const outside: string[] = [];
  const add = (address: string) => {
    const key = address.toLowerCase();
    if (seen.has(key)) return;
    seen.add(key);
    recipients.push(address);
  };
  for (const address of message.emailRecipients) {
    if (isMailAddress(address) && inRecipientDomains(address, domains)) add(address);
    else outside.push(JSON.stringify(address));
  }
  for (const address of config.to ?? []) if (isMailAddress(address)) add(address);
  return { recipients, outside };
}

/** What is wrong with the addresses of an EMAIL config, naming the setting; undefined when nothing. */
export function emailConfigProblem(config: EmailConfig): ConfigProblem | undefined {
  if (senderAddress(config.from) === undefined) {
    return {
      field: 'from',
      message:
        'must be one address, `alarms@example.com` or `Tickwheel <alarms@example.com>`, without line breaks or control characters',
    };
  }
  const to = config.to ?? [];
  const badTo = to.findIndex((address) => !isMailAddress(address));
  if (badTo >= 0) {
    return {
      field: `to[${badTo}]`,
      message: 'must be one e-mail address (ops@example.com), without a name, spaces or control characters',
    };
  }
  const domains = config.recipientDomains ?? [];
  const badDomain = domains.findIndex((domain) => !isRecipientDomain(domain));
  if (badDomain >= 0) {
    return { field: `recipientDomains[${badDomain}]`, message: 'must be a domain (example.com) or *' };
  }
  return undefined;
}

/** The relay's address, resolved and checked by the network rules. */
async function relayAddress(host: string, networkRules: NetworkRules): Promise<string> {
  try {
    return await networkRules.allowedAddressOf(host);
  } catch (err) {
    if (err instanceof DeniedAddressError) {
      throw new AlarmSendError(`SMTP: ${err.message}`, { retryable: false, cause: err });
    }
    const code = (err as { code?: unknown }).code;
    throw new AlarmSendError(`SMTP: cannot resolve ${host}${typeof code === 'string' ? ` (${code})` : ''}`, {
      retryable: true,
      cause: err,
    });
  }
}

/** A header value on one line: a job name's line breaks and control characters become spaces. */
function oneLine(text: string): string {
  return text.replace(/[\p{Cc}\u2028\u2029]+/gu, ' ');
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

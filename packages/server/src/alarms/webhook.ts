/**
 * The generic webhook: a JSON POST of the alarm (the job and the fire record as the REST API
 * shows them, the reason) to a URL of the admin's choosing. With a secret set, the request is
 * signed so the receiver can tell it came from this server, and replays are refused:
 *
 *   X-Tickwheel-Timestamp: <epoch seconds>           (also `sentAt` in the body)
 *   X-Tickwheel-Signature: sha256=<hex HMAC-SHA256(secret, raw body)>
 *
 * The timestamp is inside the signed body, so it cannot be changed without breaking the
 * signature; a receiver checks the signature over the raw bytes, then that the timestamp is
 * recent (say 5 minutes) and equal to the header. `X-Tickwheel-Delivery` stays the same on
 * every retry of one alarm to one channel, for receivers that drop repeats.
 */
import { createHmac } from 'node:crypto';
import { type Static, Type } from 'typebox';
import type { AlarmMessage } from './alarm-message.js';
import type { AlarmChannelKind } from './channel.js';
import { httpUrl, signingSecret } from './config-schemas.js';
import { postJson } from './post-json.js';

export const SIGNATURE_HEADER = 'x-tickwheel-signature';
export const TIMESTAMP_HEADER = 'x-tickwheel-timestamp';
export const DELIVERY_HEADER = 'x-tickwheel-delivery';
export const EVENT_HEADER = 'x-tickwheel-event';

export const WebhookConfig = Type.Object(
  {
    url: httpUrl('Where the alarm is POSTed'),
    secret: Type.Optional(signingSecret('Signs each request (X-Tickwheel-Signature); none: unsigned')),
  },
  { additionalProperties: false },
);
export type WebhookConfig = Static<typeof WebhookConfig>;

export const webhookChannel: AlarmChannelKind<WebhookConfig> = {
  type: 'WEBHOOK',
  configSchema: WebhookConfig,
  secretFields: ['secret'],
  urlFields: ['url'],
  async send(message, config, context) {
    const sentAt = Math.floor(context.now() / 1000);
    const body = JSON.stringify(webhookPayload(message, sentAt));
    const headers: Record<string, string> = {
      [TIMESTAMP_HEADER]: String(sentAt),
      [DELIVERY_HEADER]: context.deliveryId,
      [EVENT_HEADER]: message.event,
    };
    if (config.secret !== undefined) headers[SIGNATURE_HEADER] = `sha256=${signBody(config.secret, body)}`;
    await postJson(config.url, body, headers, context);
  },
};

/** The body: what happened, to which job and fire record, when it was sent (epoch seconds). */
export function webhookPayload(message: AlarmMessage, sentAt: number) {
  return {
    event: message.event,
    title: message.title,
    reason: message.reason,
    raisedAt: message.raisedAt,
    sentAt,
    app: message.app,
    job: message.job,
    fire: message.fire,
  };
}

/** Hex HMAC-SHA256 of the raw body: what `X-Tickwheel-Signature` carries after `sha256=`. */
export function signBody(secret: string, body: string): string {
  return createHmac('sha256', secret).update(body, 'utf8').digest('hex');
}

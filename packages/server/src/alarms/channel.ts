/**
 * What every alarm channel type provides: the schema of its settings (checked when an admin
 * saves a channel, shown in the OpenAPI document), which settings are secrets (never answered in
 * clear), and `send`. One file per type: email.ts, webhook.ts, dingtalk.ts, wecom.ts, feishu.ts;
 * channel-types.ts lists them.
 */
import type { TSchema } from 'typebox';
import type { NetworkRules } from '../security/network-rules.js';
import type { AlarmMessage } from './alarm-message.js';

export const ALARM_CHANNEL_TYPES = ['EMAIL', 'WEBHOOK', 'DINGTALK', 'WECOM', 'FEISHU'] as const;
export type AlarmChannelType = (typeof ALARM_CHANNEL_TYPES)[number];

export interface SendContext {
  /** Aborts when the send's time is up or the server stops; pass it to every call out. */
  signal: AbortSignal;
  /** The clock robots sign with (epoch ms). */
  now(): number;
  /** Names this alarm's delivery to this channel; the same on every retry, so a receiver can drop repeats. */
  deliveryId: string;
  /** Where the channel may connect: every connection to a receiver is made by these rules. */
  networkRules: NetworkRules;
}

/** A setting of a config that is wrong beyond its schema: `to[1]`, and why. */
export interface ConfigProblem {
  field: string;
  message: string;
}

export interface AlarmChannelKind<Config> {
  readonly type: AlarmChannelType;
  /** The settings; a saved config passed it, so `send` may trust its shape. */
  readonly configSchema: TSchema;
  /** Settings answered as `"***"`; an update sending `"***"` keeps the stored value. */
  readonly secretFields: readonly string[];
  /**
   * URL settings that may carry a token (a robot's access_token or key): answered with the
   * token masked; an update sending that masked URL back keeps the stored one.
   */
  readonly urlFields: readonly string[];
  /**
   * Settings naming a host (a name or an IP address) the server connects to, such as an SMTP
   * relay: refused when saved if they are an address the network rules deny, as the URL
   * settings' hosts are. Default none.
   */
  readonly hostFields?: readonly string[];
  /** Checks the schema cannot make (a config that passed it): the first problem, or undefined. */
  checkConfig?(config: Config): ConfigProblem | undefined;
  /**
   * Sends the alarm; resolves when the receiver took it.
   *
   * @throws AlarmSendError saying why not, and whether trying again may help.
   */
  send(message: AlarmMessage, config: Config, context: SendContext): Promise<void>;
}

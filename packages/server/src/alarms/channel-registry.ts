/**
 * The channel types by name, and what is done with a channel's stored settings whatever its
 * type: check them against the type's schema, mask their secrets for an answer, and merge an
 * update into them (a secret sent back masked keeps its stored value).
 */
import { Compile } from 'typebox/compile';
import { ALARM_CHANNEL_TYPES, type AlarmChannelKind, type AlarmChannelType } from './channel.js';
import { dingTalkChannel } from './dingtalk.js';
import { emailChannel } from './email.js';
import { feishuChannel } from './feishu.js';
import { webhookChannel } from './webhook.js';
import { weComChannel } from './wecom.js';

/** What a secret is answered as, and what an update sends to keep it. */
export const MASK = '***';

export type ChannelConfig = Record<string, unknown>;

/** A problem with a config, in ajv's error shape (what the REST API's error envelope reads). */
export interface ConfigIssue {
  keyword: string;
  instancePath: string;
  params: Record<string, unknown>;
  message?: string;
}

export const CHANNEL_KINDS: Readonly<Record<AlarmChannelType, AlarmChannelKind<ChannelConfig>>> = {
  EMAIL: emailChannel,
  WEBHOOK: webhookChannel,
  DINGTALK: dingTalkChannel,
  WECOM: weComChannel,
  FEISHU: feishuChannel,
};

export function isAlarmChannelType(type: string): type is AlarmChannelType {
  return (ALARM_CHANNEL_TYPES as readonly string[]).includes(type);
}

const validators = new Map(
  ALARM_CHANNEL_TYPES.map((type) => [type, Compile(CHANNEL_KINDS[type].configSchema)] as const),
);

/**
 * What is wrong with `config` for a channel of `type`; empty when it is right. Besides the
 * schema, every URL must parse and the type's own checks pass (an e-mail address is one).
 */
export function configIssues(type: AlarmChannelType, config: unknown): ConfigIssue[] {
  const validator = validators.get(type)!;
  if (!validator.Check(config)) return [...validator.Errors(config)] as ConfigIssue[];
  const problem = CHANNEL_KINDS[type].checkConfig?.(config as ChannelConfig);
  if (problem !== undefined) {
    return [
      {
        keyword: 'format',
        instancePath: `/${problem.field.replace(/\[(\d+)\]/g, '/$1')}`,
        params: {},
        message: problem.message,
      },
    ];
  }
  for (const field of CHANNEL_KINDS[type].urlFields) {
    const value = (config as ChannelConfig)[field];
    if (typeof value === 'string' && !URL.canParse(value)) {
      return [
        {
          keyword: 'format',
          instancePath: `/${field}`,
          params: { format: 'url' },
          message: 'must be an http(s) URL',
        },
      ];
    }
  }
  return [];
}

/** The config as an answer shows it: secrets as `***`, tokens in URLs masked. */
export function maskConfig(type: AlarmChannelType, config: ChannelConfig): ChannelConfig {
  const kind = CHANNEL_KINDS[type];
  const out: ChannelConfig = { ...config };
  for (const field of kind.secretFields) if (out[field] !== undefined) out[field] = MASK;
  for (const field of kind.urlFields) {
    if (typeof out[field] === 'string') out[field] = maskUrl(out[field]);
  }
  return out;
}

/**
 * The config an update results in: the given fields over the stored ones (`null` removes an
 * optional one), where a secret sent as `***`, or a URL sent exactly as it was answered
 * masked, keeps the stored value. A channel changing type starts from nothing stored.
 */
export function mergeConfig(
  type: AlarmChannelType,
  stored: ChannelConfig,
  given: ChannelConfig,
): ChannelConfig {
  const kind = CHANNEL_KINDS[type];
  const out: ChannelConfig = { ...stored };
  for (const [field, value] of Object.entries(given)) {
    if (value === null) {
      delete out[field];
    } else if (kind.secretFields.includes(field) && value === MASK) {
      if (stored[field] === undefined) out[field] = value;
    } else if (
      kind.urlFields.includes(field) &&
      typeof stored[field] === 'string' &&
      value === maskUrl(stored[field])
    ) {
      out[field] = stored[field];
    } else {
      out[field] = value;
    }
  }
  return out;
}

/** A new channel's config: `***` and masked URLs mean nothing yet, so they are refused by the caller. */
export function maskedFieldsIn(type: AlarmChannelType, config: ChannelConfig): string[] {
  const kind = CHANNEL_KINDS[type];
  return [...kind.secretFields, ...kind.urlFields].filter((field) => {
    const value = config[field];
    return typeof value === 'string' && value.includes(MASK);
  });
}

/**
 * A URL with whatever may be a token masked: the password, every query value, and a last path
 * segment of 16 characters or more (Feishu's hook token).
 * `https://qyapi.weixin.qq.com/cgi-bin/webhook/send?key=abc` → `…/send?key=***`.
 */
export function maskUrl(url: string): string {
  if (!URL.canParse(url)) return MASK;
  const { protocol, username, password, host, pathname, searchParams } = new URL(url);
  const auth = username === '' ? '' : `${username}${password === '' ? '' : `:${MASK}`}@`;
  const path = pathname.replace(/\/[^/]{16,}$/, `/${MASK}`);
  const query = [...searchParams.keys()].map((key) => `${key}=${MASK}`).join('&');
  return `${protocol}//${auth}${host}${path}${query === '' ? '' : `?${query}`}`;
}

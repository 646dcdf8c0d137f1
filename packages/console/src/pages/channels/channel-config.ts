/**
 * What each channel type's settings are (the server's config schemas, see
 * `createAlarmChannel`), and how the form's values become a config to create or the changes
 * to send in an update. Answers carry secrets as `***` and robot tokens in URLs masked: the
 * form never sends those back, so an unchanged secret keeps its stored value.
 */
import type { AlarmChannel, Body } from '../../api/types';

export const CHANNEL_TYPES = ['EMAIL', 'WEBHOOK', 'DINGTALK', 'WECOM', 'FEISHU'] as const;
export type ChannelType = (typeof CHANNEL_TYPES)[number];

/** What the server answers in place of a stored secret. */
export const MASK = '***';

export type FieldKind = 'text' | 'url' | 'secret' | 'port' | 'select' | 'tags' | 'switch';

export interface ConfigField {
  key: string;
  kind: FieldKind;
  required?: boolean;
  /** select: the values, in the order shown; the first is the server's default. */
  options?: readonly string[];
  /** switch: the value of a new channel. */
  initial?: boolean;
  /** The message key of the hint under the field, when it has one. */
  hint?: string;
}

export const CONFIG_FIELDS: Readonly<Record<ChannelType, readonly ConfigField[]>> = {
  EMAIL: [
    { key: 'host', kind: 'text', required: true },
    { key: 'port', kind: 'port', hint: 'config.portHint' },
    { key: 'security', kind: 'select', options: ['STARTTLS', 'TLS', 'NONE'] },
    { key: 'username', kind: 'text' },
    { key: 'password', kind: 'secret' },
    { key: 'from', kind: 'text', required: true, hint: 'config.fromHint' },
    { key: 'to', kind: 'tags', hint: 'config.toHint' },
    { key: 'rejectUnauthorized', kind: 'switch', initial: true },
  ],
  WEBHOOK: [
    { key: 'url', kind: 'url', required: true, hint: 'config.webhookUrlHint' },
    { key: 'secret', kind: 'secret', hint: 'config.webhookSecretHint' },
  ],
  DINGTALK: [
    { key: 'url', kind: 'url', required: true, hint: 'config.robotUrlHint' },
    { key: 'secret', kind: 'secret', hint: 'config.robotSecretHint' },
    { key: 'msgType', kind: 'select', options: ['markdown', 'text'] },
    { key: 'atMobiles', kind: 'tags' },
    { key: 'atAll', kind: 'switch', initial: false },
  ],
  WECOM: [
    { key: 'url', kind: 'url', required: true, hint: 'config.robotUrlHint' },
    { key: 'msgType', kind: 'select', options: ['markdown', 'text'] },
    { key: 'mentionedMobiles', kind: 'tags' },
  ],
  FEISHU: [
    { key: 'url', kind: 'url', required: true, hint: 'config.robotUrlHint' },
    { key: 'secret', kind: 'secret', hint: 'config.robotSecretHint' },
    { key: 'msgType', kind: 'select', options: ['post', 'text'] },
  ],
};

export type ConfigValues = Record<string, unknown>;

export interface ChannelValues {
  name: string;
  type: ChannelType;
  enabled: boolean;
  config: ConfigValues;
  /** Secrets to remove, by key (edit only). */
  clear?: Record<string, boolean>;
}

export function isChannelType(type: string): type is ChannelType {
  return (CHANNEL_TYPES as readonly string[]).includes(type);
}

/** The form of a new channel of `type`. */
export function newChannelValues(type: ChannelType): ChannelValues {
  const config: ConfigValues = {};
  for (const field of CONFIG_FIELDS[type]) {
    if (field.kind === 'switch') config[field.key] = field.initial ?? false;
    if (field.kind === 'select') config[field.key] = field.options?.[0];
    if (field.kind === 'tags') config[field.key] = [];
  }
  return { name: '', type, enabled: true, config };
}

/** The form of an existing channel: its settings as answered, a stored secret as an empty input. */
export function channelValues(channel: AlarmChannel): ChannelValues {
  const type = isChannelType(channel.type) ? channel.type : 'WEBHOOK';
  const config: ConfigValues = { ...newChannelValues(type).config };
  for (const field of CONFIG_FIELDS[type]) {
    const value = channel.config[field.key];
    if (field.kind === 'secret') config[field.key] = '';
    else if (value !== undefined && value !== null) config[field.key] = value;
  }
  return { name: channel.name, type, enabled: channel.enabled, config, clear: {} };
}

/** Whether the channel has a value stored for secret `key` (answered masked). */
export function hasStoredSecret(channel: AlarmChannel | undefined, key: string): boolean {
  return channel !== undefined && channel.config[key] === MASK;
}

function isEmpty(value: unknown): boolean {
  return (
    value === undefined ||
    value === null ||
    (typeof value === 'string' && value.trim() === '') ||
    (Array.isArray(value) && value.length === 0)
  );
}

function normalise(field: ConfigField, value: unknown): unknown {
  if (typeof value === 'string' && field.kind !== 'secret') return value.trim();
  if (field.kind === 'tags' && Array.isArray(value)) {
    return value.map((item) => String(item).trim()).filter((item) => item !== '');
  }
  return value;
}

/** A new channel's config: the fields filled in, empty ones left out. */
export function configToCreate(type: ChannelType, values: ConfigValues): Record<string, unknown> {
  const config: Record<string, unknown> = {};
  for (const field of CONFIG_FIELDS[type]) {
    const value = normalise(field, values[field.key]);
    if (!isEmpty(value)) config[field.key] = value;
  }
  return config;
}

/**
 * The changes an update sends: only the settings that differ from what was answered; an
 * emptied optional one as `null` (removes it). A secret is sent only when a new one was
 * typed, or as `null` when its removal was asked — never the `***` it was answered as.
 */
export function configChanges(
  channel: AlarmChannel,
  values: ConfigValues,
  clear: Record<string, boolean> = {},
): NonNullable<Body<'updateAlarmChannel'>['config']> {
  const type = isChannelType(channel.type) ? channel.type : 'WEBHOOK';
  const before = channelValues(channel).config;
  const changes: Record<string, unknown> = {};
  for (const field of CONFIG_FIELDS[type]) {
    const value = normalise(field, values[field.key]);
    if (field.kind === 'secret') {
      if (clear[field.key] === true) changes[field.key] = null;
      else if (!isEmpty(value)) changes[field.key] = value;
      continue;
    }
    const old = normalise(field, before[field.key]);
    if (JSON.stringify(value ?? null) === JSON.stringify(old ?? null)) continue;
    changes[field.key] = isEmpty(value) ? null : value;
  }
  return changes;
}

/** Where a channel sends, in a few words for the list: its URL (masked as answered) or SMTP server. */
export function channelTarget(channel: AlarmChannel): string {
  const { config } = channel;
  if (channel.type === 'EMAIL') {
    const host = typeof config.host === 'string' ? config.host : '';
    const port = typeof config.port === 'number' ? `:${config.port}` : '';
    const to = Array.isArray(config.to) && config.to.length > 0 ? ` → ${config.to.join(', ')}` : '';
    return `${host}${port}${to}`;
  }
  return typeof config.url === 'string' ? config.url : '';
}

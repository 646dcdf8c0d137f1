/**
 * Alarm channels, admin only: `listAlarmChannels`, `getAlarmChannel`, `createAlarmChannel`,
 * `updateAlarmChannel`, `deleteAlarmChannel`, `testAlarmChannel`. A channel's settings are
 * checked against its type's schema before they are stored; answers never carry a password or
 * secret in clear (`***`) nor the token in a robot's URL, and an update that sends those back
 * as answered keeps the stored values. A URL whose host is an address the server's network
 * rules deny is refused here already (a host name is checked when the alarm connects).
 *
 * Also the checks `createJob` and `updateJob` make of a job's alarm settings: its channels
 * exist, and its `alarmEmail` addresses are single addresses that an EMAIL channel mails (email.ts).
 */
import type { FastifyInstance } from 'fastify';
import { splitEmails } from '../alarms/alarm-message.js';
import type { AlarmChannelType } from '../alarms/channel.js';
import {
  CHANNEL_KINDS,
  type ChannelConfig,
  type ConfigIssue,
  configIssues,
  isAlarmChannelType,
  maskConfig,
  maskedFieldsIn,
  mergeConfig,
} from '../alarms/channel-registry.js';
import type { EmailConfig } from '../alarms/email.js';
import { inRecipientDomains, isMailAddress, recipientDomainsOf } from '../alarms/email-address.js';
import { channelsForJob } from '../alarms/job-channels.js';
import { sendTestAlarm } from '../alarms/test-alarm.js';
import { NetworkRules } from '../security/network-rules.js';
import type { AlarmChannelRepository, AlarmChannelRow } from '../store/index.js';
import { recordAudit } from './audit-trail.js';
import { type ApiContext, principalOf, requireAdmin, SECURITY } from './context.js';
import { conflict, errorResponses, invalidField, notFound } from './errors.js';
import {
  AlarmChannel,
  type AlarmChannelPatchBody,
  AlarmChannelPatchBody as AlarmChannelPatchSchema,
  AlarmChannelQuery,
  AlarmChannelTestResult,
  IdParams,
  type NewAlarmChannelBody,
  NewAlarmChannelBody as NewAlarmChannelSchema,
  Page,
  type TestAlarmChannelBody,
  TestAlarmChannelBody as TestAlarmChannelSchema,
} from './schemas.js';

const TAGS = ['alarm channels'];

export function registerAlarmChannels(api: FastifyInstance, ctx: ApiContext): void {
  const { store, clock } = ctx.deps;
  const channels = store.alarmChannels;
  const networkRules = ctx.deps.networkRules ?? new NetworkRules();
  const admin = (request: Parameters<typeof principalOf>[1], what: string) =>
    requireAdmin(principalOf(ctx, request), what);

  api.get<{ Querystring: AlarmChannelQuery }>(
    '/alarm-channels',
    {
      schema: {
        operationId: 'listAlarmChannels',
        tags: TAGS,
        summary: 'List the alarm channels (admin), secrets masked',
        security: SECURITY,
        querystring: AlarmChannelQuery,
        response: { 200: Page(AlarmChannel), ...errorResponses(400, 403) },
      },
    },
    async (request) => {
      admin(request, 'see alarm channels');
      const { type, limit = 50, offset = 0 } = request.query;
      const rows = await channels.listAlarmChannels(type === undefined ? {} : { type });
      return {
        items: rows.slice(offset, offset + limit).map(toAlarmChannel),
        total: rows.length,
        limit,
        offset,
      };
    },
  );

  api.get<{ Params: IdParams }>(
    '/alarm-channels/:id',
    {
      schema: {
        operationId: 'getAlarmChannel',
        tags: TAGS,
        summary: 'One alarm channel (admin), secrets masked',
        security: SECURITY,
        params: IdParams,
        response: { 200: AlarmChannel, ...errorResponses(400, 403, 404) },
      },
    },
    async (request) => {
      admin(request, 'see alarm channels');
      return toAlarmChannel(await findChannel(channels, request.params.id));
    },
  );

  api.post<{ Body: NewAlarmChannelBody }>(
    '/alarm-channels',
    {
      schema: {
        operationId: 'createAlarmChannel',
        tags: TAGS,
        summary: 'Create an alarm channel (admin): e-mail, webhook, or a DingTalk, WeCom or Feishu robot',
        security: SECURITY,
        body: NewAlarmChannelSchema,
        response: { 201: AlarmChannel, ...errorResponses(400, 403, 409) },
      },
    },
    async (request, reply) => {
      admin(request, 'create alarm channels');
      const { name, type, enabled = true, config } = request.body;
      checkConfig(type, config, networkRules);
      await checkNameFree(channels, name);
      const row = await channels.createAlarmChannel(
        { name, type, enabled, config: JSON.stringify(config) },
        clock.now(),
      );
      await recordAudit(ctx, request, {
        action: 'CREATE',
        targetType: 'ALARM_CHANNEL',
        targetId: row.id,
        appId: null,
        detail: { name, type },
      });
      reply.code(201);
      return toAlarmChannel(row);
    },
  );

  api.patch<{ Params: IdParams; Body: AlarmChannelPatchBody }>(
    '/alarm-channels/:id',
    {
      schema: {
        operationId: 'updateAlarmChannel',
        tags: TAGS,
        summary:
          'Change an alarm channel (admin); fields left out keep their value, and so do secrets sent back as "***"',
        security: SECURITY,
        params: IdParams,
        body: AlarmChannelPatchSchema,
        response: { 200: AlarmChannel, ...errorResponses(400, 403, 404, 409) },
      },
    },
    async (request) => {
      admin(request, 'change alarm channels');
      const existing = await findChannel(channels, request.params.id);
      const { name, type = existing.type, enabled, config: given } = request.body;
      const typeChanged = type !== existing.type;
      if (!isAlarmChannelType(type)) throw invalidField('type', `type: ${type} is not a channel type`);
      if (typeChanged && given === undefined) {
        throw invalidField('config', `config: is required when the type changes (to ${type})`);
      }
      const stored = typeChanged ? {} : storedConfig(existing);
      const config = given === undefined ? stored : mergeConfig(type, stored, given);
      checkConfig(type, config, networkRules);
      if (name !== undefined && name !== existing.name) await checkNameFree(channels, name);
      await channels.updateAlarmChannel(
        existing.id,
        {
          ...(name === undefined ? {} : { name }),
          type,
          ...(enabled === undefined ? {} : { enabled }),
          config: JSON.stringify(config),
        },
        clock.now(),
      );
      await recordAudit(ctx, request, {
        action: 'UPDATE',
        targetType: 'ALARM_CHANNEL',
        targetId: existing.id,
        appId: null,
        // The names of the settings changed, never their values (they may be secrets).
        detail: {
          fields: Object.keys(request.body),
          ...(given === undefined ? {} : { config: Object.keys(given) }),
        },
      });
      return toAlarmChannel((await channels.findAlarmChannelById(existing.id)) ?? existing);
    },
  );

  api.delete<{ Params: IdParams }>(
    '/alarm-channels/:id',
    {
      schema: {
        operationId: 'deleteAlarmChannel',
        tags: TAGS,
        summary: 'Delete an alarm channel (admin) no job alarms through any more',
        security: SECURITY,
        params: IdParams,
        response: { 204: { type: 'null', description: 'Deleted' }, ...errorResponses(400, 403, 404, 409) },
      },
    },
    async (request, reply) => {
      admin(request, 'delete alarm channels');
      const channel = await findChannel(channels, request.params.id);
      const users = await channels.findJobsUsingAlarmChannel(channel.id);
      if (users.length > 0) {
        throw conflict(
          `alarm channel ${channel.id} is used by job${users.length === 1 ? '' : 's'} ${users.slice(0, 20).join(', ')}${users.length > 20 ? ', …' : ''}; take it out of their alarmChannelIds (or disable it) first`,
        );
      }
      if (!(await channels.deleteAlarmChannel(channel.id))) throw notFound('alarm channel', channel.id);
      await recordAudit(ctx, request, {
        action: 'DELETE',
        targetType: 'ALARM_CHANNEL',
        targetId: channel.id,
        appId: null,
        detail: { name: channel.name, type: channel.type },
      });
      reply.code(204);
    },
  );

  api.post<{ Params: IdParams; Body: TestAlarmChannelBody }>(
    '/alarm-channels/:id/test',
    {
      schema: {
        operationId: 'testAlarmChannel',
        tags: TAGS,
        summary:
          'Send a test alarm through the channel now (admin, disabled channels too) and answer whether it was taken',
        security: SECURITY,
        params: IdParams,
        body: TestAlarmChannelSchema,
        response: { 200: AlarmChannelTestResult, ...errorResponses(400, 403, 404) },
      },
    },
    async (request) => {
      admin(request, 'test alarm channels');
      const channel = await findChannel(channels, request.params.id);
      const alarmEmail = request.body.alarmEmail ?? '';
      checkEmailList('alarmEmail', alarmEmail);
      return sendTestAlarm(channel, {
        alarmEmail,
        timeoutMs: ctx.deps.alarmSendTimeoutMs,
        now: () => clock.now(),
        networkRules,
      });
    },
  );
}

/**
 * @throws ApiError 400 naming the first id of `ids` that is no alarm channel (the check
 * `createJob` and `updateJob` make on `alarmChannelIds`).
 */
export async function checkAlarmChannelIds(
  channels: Pick<AlarmChannelRepository, 'findAlarmChannelsByIds'>,
  ids: readonly number[],
): Promise<void> {
  if (ids.length === 0) return;
  const found = new Set((await channels.findAlarmChannelsByIds(ids)).map((row) => row.id));
  const missing = ids.find((id) => !found.has(id));
  if (missing !== undefined) {
    throw invalidField('alarmChannelIds', `alarmChannelIds: alarm channel ${missing} does not exist`);
  }
}

/**
 * @throws ApiError 400 naming `field` unless `list` is comma-separated single e-mail addresses.
 */
export function checkEmailList(field: string, list: string): void {
  for (const address of splitEmails(list)) {
    if (!isMailAddress(address)) {
      throw invalidField(
        field,
        `${field}: ${JSON.stringify(address)} is not one e-mail address (ops@example.com, without a name, spaces or control characters)`,
      );
    }
  }
}

/**
 * A job's `alarmEmail` (`createJob`, `updateJob`): single addresses, each one new to the job
 * (not in `before`) within the recipient domains of an EMAIL channel that mails the job (its
 * chosen ones, else every enabled one; email.ts). With no such channel nothing is mailed, and
 * the addresses wait for an admin's channel, which applies its domains when it sends.
 *
 * @throws ApiError 400 naming `alarmEmail`.
 */
export async function checkJobAlarmEmail(
  channels: Pick<AlarmChannelRepository, 'findAlarmChannelsByIds' | 'listAlarmChannels'>,
  job: { alarmEmail: string; alarmChannelIds: readonly number[] },
  before: string,
): Promise<void> {
  checkEmailList('alarmEmail', job.alarmEmail);
  const known = new Set(splitEmails(before).map((address) => address.toLowerCase()));
  const added = splitEmails(job.alarmEmail).filter((address) => !known.has(address.toLowerCase()));
  if (added.length === 0) return;
  const mailing = (
    await channelsForJob(channels, {
      alarm_channel_ids: job.alarmChannelIds.join(','),
      alarm_email: job.alarmEmail,
    })
  ).filter((row) => row.type === 'EMAIL');
  if (mailing.length === 0) return;
  const domainsByChannel = mailing.map((row) => ({
    name: row.name,
    domains: recipientDomainsOf(storedConfig(row) as EmailConfig),
  }));
  for (const address of added) {
    if (domainsByChannel.some(({ domains }) => inRecipientDomains(address, domains))) continue;
    const domains = domainsByChannel
      .map(({ name, domains }) => `${name}: ${domains.join(', ') || 'none'}`)
      .join('; ');
    throw invalidField(
      'alarmEmail',
      `alarmEmail: ${address} is outside the recipient domains of the EMAIL channels that mail this job (${domains}); an admin can add its domain to a channel's recipientDomains`,
    );
  }
}

export function toAlarmChannel(row: AlarmChannelRow): AlarmChannel {
  const type = row.type;
  const config = storedConfig(row);
  return {
    id: row.id,
    name: row.name,
    type,
    enabled: row.enabled === 1,
    config: isAlarmChannelType(type) ? maskConfig(type, config) : {},
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

async function findChannel(channels: AlarmChannelRepository, id: number): Promise<AlarmChannelRow> {
  const row = await channels.findAlarmChannelById(id);
  if (row === undefined) throw notFound('alarm channel', id);
  return row;
}

async function checkNameFree(channels: AlarmChannelRepository, name: string): Promise<void> {
  if ((await channels.findAlarmChannelByName(name)) !== undefined) {
    throw conflict(`an alarm channel named ${name} exists already`, 'name');
  }
}

function storedConfig(row: AlarmChannelRow): ChannelConfig {
  try {
    const config: unknown = JSON.parse(row.config);
    return typeof config === 'object' && config !== null ? (config as ChannelConfig) : {};
  } catch {
    return {};
  }
}

/**
 * @throws 400 with the first problem of `config` for `type`, worded as the REST API words a body
 * problem (`config.port: must be integer`), for a secret sent as `***` with nothing stored, or
 * for a URL's host or a host setting (an SMTP relay) that is an address the network rules deny.
 */
function checkConfig(type: AlarmChannelType, config: ChannelConfig, networkRules: NetworkRules): void {
  const issues = configIssues(type, config);
  if (issues.length > 0) throw configValidationError(issues);
  const kind = CHANNEL_KINDS[type];
  const hosts = [
    ...kind.urlFields.map((field) => [field, config[field], 'url'] as const),
    ...(kind.hostFields ?? []).map((field) => [field, config[field], 'host'] as const),
  ];
  for (const [field, value, form] of hosts) {
    if (typeof value !== 'string') continue;
    const host = form === 'url' ? new URL(value).hostname : value.trim();
    const range = networkRules.deniedRangeOf(host);
    if (range !== undefined) {
      throw invalidField(
        `config.${field}`,
        `config.${field}: ${host} is in a denied range (${range.cidr}, ${range.name}); the server does not connect there unless its allowedNetworks option allows it`,
      );
    }
  }
  const masked = maskedFieldsIn(type, config)[0];
  if (masked !== undefined) {
    throw invalidField(
      `config.${masked}`,
      `config.${masked}: send the value itself; "***" stands for a value already stored`,
    );
  }
}

/** The shape Fastify gives a body validation error, so errors.ts words it like any other. */
function configValidationError(issues: ConfigIssue[]): Error {
  return Object.assign(new Error('invalid alarm channel config'), {
    statusCode: 400,
    validationContext: 'body',
    validation: issues.map((issue) => ({ ...issue, instancePath: `/config${issue.instancePath}` })),
  });
}

/**
 * `tickwheel channel list|get|add|update|rm|test`: the alarm channels failures are sent through
 * (`listAlarmChannels`, `getAlarmChannel`, `createAlarmChannel`, `updateAlarmChannel`,
 * `deleteAlarmChannel`, `testAlarmChannel`; admin only). A channel is named by id or by name.
 *
 * A channel's settings are a JSON object whose fields depend on its type (the OpenAPI document
 * lists them): given whole with `--config '{...}'` or `--config-file f.json`, or field by field
 * with `--set url=https://…` (repeatable; on update, the fields set replace the stored ones and
 * the others stay). The server masks secrets in what it answers; `get` shows them masked.
 */
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { type Command, InvalidArgumentError } from 'commander';
import { type AlarmChannel, type ApiClient, type Body, call, notFound, type Query } from '../api-client.js';
import { parseWholeNumber } from '../flag-parsers.js';
import { clip, formatTime, printJson, printPageFooter, printRecord, printTable } from '../output.js';
import { action, CliFailure, clientOf, restFlags, withServerOptions } from '../rest-command.js';

interface ConfigFlags {
  config?: string;
  configFile?: string;
  set?: Array<[string, unknown]>;
}

interface AddFlags extends ConfigFlags {
  type: string;
  disabled?: boolean;
}

interface UpdateFlags extends ConfigFlags {
  name?: string;
  type?: string;
  enable?: boolean;
  disable?: boolean;
}

export function registerChannelCommand(program: Command): void {
  const channel = withServerOptions(
    program
      .command('channel')
      .description('list, show, create, change, delete and test alarm channels (admin)'),
  );

  channel
    .command('list')
    .description('list the alarm channels')
    .option('--type <type>', 'only channels of this type (EMAIL, WEBHOOK, DINGTALK, WECOM, FEISHU)', upper)
    .option('--limit <n>', 'at most this many (default 50, at most 200)', parseWholeNumber)
    .option('--offset <n>', 'skip this many', parseWholeNumber)
    .action(
      action(async (flags: { type?: string; limit?: number; offset?: number }, command: Command) => {
        // The type as given: the server names the types it takes when it refuses one.
        const type = flags.type as Query<'listAlarmChannels'>['type'];
        const page = await call(
          clientOf(command).GET('/api/v1/alarm-channels', {
            params: { query: { type, limit: flags.limit, offset: flags.offset } },
          }),
        );
        if (restFlags(command).json) return printJson(page);
        printTable(
          ['ID', 'NAME', 'TYPE', 'ENABLED', 'TARGET'],
          page.items.map((item) => [
            item.id,
            item.name,
            item.type,
            item.enabled ? 'yes' : 'no',
            clip(targetOf(item), 60),
          ]),
        );
        printPageFooter(page);
      }),
    );

  channel
    .command('get')
    .description('show one alarm channel, secrets masked')
    .argument('<channel>', 'channel id or name')
    .action(
      action(async (ref: string, _flags: unknown, command: Command) => {
        const found = await resolveChannel(clientOf(command), ref);
        if (restFlags(command).json) return printJson(found);
        printRecord([
          ['id', found.id],
          ['name', found.name],
          ['type', found.type],
          ['enabled', found.enabled ? 'yes' : 'no'],
          ...Object.entries(found.config).map(([key, value]): [string, string] => [
            `config.${key}`,
            configValueText(value),
          ]),
          ['createdAt', formatTime(found.createdAt)],
          ['updatedAt', formatTime(found.updatedAt)],
        ]);
      }),
    );

  withConfigFlags(
    channel
      .command('add')
      .description('create an alarm channel (enabled unless --disabled)')
      .argument('<name>', 'a unique name, e.g. ops-mail')
      .requiredOption('--type <type>', 'EMAIL, WEBHOOK, DINGTALK, WECOM or FEISHU', upper)
      .option('--disabled', 'create it disabled: kept, but no alarm goes through it'),
  ).action(
    action(async (name: string, flags: AddFlags, command: Command) => {
      const config = await configOf(flags);
      if (config === undefined) {
        throw new CliFailure(
          'TW_ERR_INVALID_OPTION',
          'a channel needs its settings: give --config, --config-file or --set',
        );
      }
      const body = { name, type: flags.type, ...(flags.disabled ? { enabled: false } : {}), config };
      // The type is checked by the server, which names the types it takes.
      const created = await call(
        clientOf(command).POST('/api/v1/alarm-channels', { body: body as Body<'createAlarmChannel'> }),
      );
      if (restFlags(command).json) return printJson(created);
      console.log(
        `created alarm channel ${created.id} (${created.name}, ${created.type}), ${created.enabled ? 'enabled' : 'disabled'}`,
      );
    }),
  );

  withConfigFlags(
    channel
      .command('update')
      .description('change an alarm channel; what no flag names keeps its value')
      .argument('<channel>', 'channel id or name')
      .option('--name <name>', 'rename it')
      .option('--type <type>', 'change its type (then give its whole config)', upper)
      .option('--enable', 'let alarms go through it again')
      .option('--disable', 'keep it, but send no alarm through it'),
  ).action(
    action(async (ref: string, flags: UpdateFlags, command: Command) => {
      if (flags.enable && flags.disable) {
        throw new CliFailure('TW_ERR_INVALID_OPTION', '--enable and --disable cannot be given together');
      }
      const client = clientOf(command);
      const existing = await resolveChannel(client, ref);
      const config = await configOf(flags);
      const patch: Record<string, unknown> = {
        ...(flags.name === undefined ? {} : { name: flags.name }),
        ...(flags.type === undefined ? {} : { type: flags.type }),
        ...(flags.enable ? { enabled: true } : {}),
        ...(flags.disable ? { enabled: false } : {}),
        ...(config === undefined ? {} : { config }),
      };
      if (Object.keys(patch).length === 0) {
        throw new CliFailure(
          'TW_ERR_INVALID_OPTION',
          'nothing to change: give --name, --type, --enable, --disable, --config, --config-file or --set',
        );
      }
      const updated = await call(
        client.PATCH('/api/v1/alarm-channels/{id}', {
          params: { path: { id: existing.id } },
          body: patch as Body<'updateAlarmChannel'>,
        }),
      );
      if (restFlags(command).json) return printJson(updated);
      console.log(`updated alarm channel ${updated.id} (${updated.name})`);
    }),
  );

  channel
    .command('rm')
    .description('delete an alarm channel no job alarms through any more')
    .argument('<channel>', 'channel id or name')
    .action(
      action(async (ref: string, _flags: unknown, command: Command) => {
        const client = clientOf(command);
        const found = await resolveChannel(client, ref);
        await call(client.DELETE('/api/v1/alarm-channels/{id}', { params: { path: { id: found.id } } }));
        if (restFlags(command).json) return printJson({ deleted: found.id });
        console.log(`deleted alarm channel ${found.id} (${found.name})`);
      }),
    );

  channel
    .command('test')
    .description('send a test alarm through a channel now (disabled ones too); exits 1 when it was not taken')
    .argument('<channel>', 'channel id or name')
    .option('--alarm-email <addresses>', 'EMAIL: also send the test to these comma-separated addresses')
    .action(
      action(async (ref: string, flags: { alarmEmail?: string }, command: Command) => {
        const client = clientOf(command);
        const found = await resolveChannel(client, ref);
        const result = await call(
          client.POST('/api/v1/alarm-channels/{id}/test', {
            params: { path: { id: found.id } },
            body: flags.alarmEmail === undefined ? {} : { alarmEmail: flags.alarmEmail },
          }),
        );
        if (restFlags(command).json) printJson(result);
        else if (result.sent) {
          console.log(
            `alarm channel ${found.id} (${found.name}) took the test alarm in ${result.durationMs} ms`,
          );
        }
        if (!result.sent) {
          throw new CliFailure(
            'TW_ERR_ALARM_SEND_FAILED',
            `alarm channel ${found.id} (${found.name}) did not take the test alarm: ${result.error ?? 'no reason given'}`,
          );
        }
      }),
    );
}

/** `--config`, `--config-file` and `--set`: the ways to give a channel's settings. */
function withConfigFlags(command: Command): Command {
  return command
    .option('--config <json>', 'the settings as a JSON object, e.g. \'{"url":"https://…","secret":"…"}\'')
    .option('--config-file <file>', 'the settings from a JSON file (- for stdin)')
    .option(
      '--set <key=value>',
      'one setting (repeatable); a value that reads as JSON (587, true, ["a@b.c"]) is taken as such, any other as text',
      collectSetting,
    );
}

/** The channel `ref` names (an id, or else a name). @throws ApiError status 404 (exit code 5) when none does. */
async function resolveChannel(client: ApiClient, ref: string): Promise<AlarmChannel> {
  if (/^\d+$/.test(ref)) {
    return call(client.GET('/api/v1/alarm-channels/{id}', { params: { path: { id: Number(ref) } } }));
  }
  const page = await call(client.GET('/api/v1/alarm-channels', { params: { query: { limit: 200 } } }));
  const found = page.items.find((item) => item.name === ref);
  if (found === undefined) throw notFound(`alarm channel ${ref} does not exist`);
  return found;
}

/** The settings the flags give, merged in order (file or JSON first, then each `--set`); undefined when none. */
async function configOf(flags: ConfigFlags): Promise<Record<string, unknown> | undefined> {
  if (flags.config !== undefined && flags.configFile !== undefined) {
    throw new CliFailure('TW_ERR_INVALID_OPTION', '--config and --config-file cannot be given together');
  }
  let config: Record<string, unknown> | undefined;
  if (flags.config !== undefined) config = parseConfig(flags.config, '--config');
  if (flags.configFile !== undefined) {
    config = parseConfig(await readSource(flags.configFile), `--config-file ${flags.configFile}`);
  }
  for (const [key, value] of flags.set ?? []) config = { ...config, [key]: value };
  return config;
}

function parseConfig(text: string, source: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new CliFailure('TW_ERR_INVALID_OPTION', `${source}: not JSON (${(err as Error).message})`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new CliFailure('TW_ERR_INVALID_OPTION', `${source}: must be a JSON object of settings`);
  }
  return parsed as Record<string, unknown>;
}

async function readSource(file: string): Promise<string> {
  try {
    return file === '-' ? readFileSync(0, 'utf8') : await readFile(file, 'utf8');
  } catch (err) {
    throw new CliFailure(
      'TW_ERR_INVALID_OPTION',
      `--config-file: cannot read ${file}: ${(err as Error).message}`,
    );
  }
}

/** `--set port=587 --set host=smtp.example.org` → `[['port', 587], ['host', 'smtp.example.org']]`. */
function collectSetting(
  value: string,
  previous: Array<[string, unknown]> | undefined,
): Array<[string, unknown]> {
  const equals = value.indexOf('=');
  if (equals < 1) throw new InvalidArgumentError('must be key=value, e.g. url=https://example.org/hook.');
  const key = value.slice(0, equals).trim();
  const text = value.slice(equals + 1);
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // Not JSON: the text itself (a URL, a host name, a password).
  }
  return [...(previous ?? []), [key, parsed]];
}

function upper(value: string): string {
  return value.trim().toUpperCase();
}

/** Where a channel sends: its (masked) URL, or the SMTP server and recipients of an EMAIL channel. */
function targetOf(channel: AlarmChannel): string {
  const { url, host, port, to } = channel.config;
  if (typeof url === 'string') return url;
  if (typeof host === 'string') {
    const recipients = Array.isArray(to) && to.length > 0 ? ` → ${to.join(', ')}` : '';
    return `${host}${port === undefined ? '' : `:${String(port)}`}${recipients}`;
  }
  return '-';
}

function configValueText(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

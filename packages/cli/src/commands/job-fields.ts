/**
 * The flags of `tickwheel job add` and `job update`, and the job body they make: only the
 * fields a flag was given for, so `update` changes nothing else. `--data` passes any field of
 * the REST API's job body as JSON (fields this CLI has no flag for).
 */
import { readFileSync } from 'node:fs';
// The enums alone: the package's index loads its wire validation too, which would double the
// start-up of every `tickwheel job` command.
import {
  BLOCK_STRATEGIES,
  GLUE_TYPES,
  MISFIRE_STRATEGIES,
  ROUTE_STRATEGIES,
  SCHEDULE_TYPES,
} from '@tickwheel/protocol/enums';
import { type Command, InvalidArgumentError, Option } from 'commander';
import { parseWholeNumber } from '../flag-parsers.js';
import { CliFailure } from '../rest-command.js';

export interface JobFieldFlags {
  name?: string;
  author?: string;
  alarmEmail?: string;
  cron?: string;
  fixRate?: number;
  fixDelay?: number;
  once?: string;
  scheduleType?: string;
  scheduleConf?: string;
  timeZone?: string;
  misfire?: string;
  route?: string;
  handler?: string;
  param?: string;
  block?: string;
  timeout?: number;
  retry?: number;
  glueType?: string;
  script?: string;
  glueRemark?: string;
  child?: number[];
  data?: Record<string, unknown>;
}

/** Adds the field flags to `job add` / `job update`. */
export function withJobFieldFlags(command: Command): Command {
  return command
    .option('--name <name>', 'the job’s name')
    .option('--author <author>', 'who owns the job')
    .option('--alarm-email <emails>', 'comma-separated e-mail addresses alarmed on failure')
    .option('--cron <expr>', 'CRON schedule, Quartz syntax with seconds: "0 */5 * * * ?"')
    .option('--fix-rate <seconds>', 'FIX_RATE schedule: every N seconds', parseWholeNumber)
    .option('--fix-delay <seconds>', 'FIX_DELAY schedule: N seconds after each run ends', parseWholeNumber)
    .option('--once <instant>', 'ONCE schedule: ISO-8601 with an offset, e.g. 2026-05-01T09:30:00+02:00')
    .addOption(new Option('--schedule-type <type>', 'schedule type').choices(SCHEDULE_TYPES))
    .option('--schedule-conf <conf>', 'schedule configuration for --schedule-type')
    .option('--time-zone <zone>', 'IANA time zone of a CRON schedule (default UTC)')
    .addOption(
      new Option('--misfire <strategy>', 'what to do with a fire missed while down').choices(
        MISFIRE_STRATEGIES,
      ),
    )
    .addOption(new Option('--route <strategy>', 'how an executor is picked').choices(ROUTE_STRATEGIES))
    .option('--handler <name>', 'executor handler of a BEAN job')
    .option('--param <param>', 'executor param passed to each run')
    .addOption(new Option('--block <strategy>', 'when a run is still running').choices(BLOCK_STRATEGIES))
    .option('--timeout <seconds>', 'executor timeout in seconds, 0 for none', parseWholeNumber)
    .option('--retry <count>', 'retries after a failed run', parseWholeNumber)
    .addOption(new Option('--glue-type <type>', 'BEAN or a script type').choices(GLUE_TYPES))
    .option('--script <file>', 'the script of a GLUE job, from a file (- for stdin)')
    .option('--glue-remark <remark>', 'a remark on the script version')
    .option('--child <ids>', 'child job ids, comma-separated ("" for none)', parseIdList)
    .option(
      '--data <json>',
      'more job fields as a JSON object (any field of the REST API’s job body)',
      parseJsonObject,
    );
}

/** The job body fields the flags give. @throws CliFailure when schedule flags conflict. */
export function jobFieldsOf(flags: JobFieldFlags): Record<string, unknown> {
  const fields: Record<string, unknown> = {};
  const set = (key: string, value: unknown) => {
    if (value !== undefined) fields[key] = value;
  };
  set('name', flags.name);
  set('author', flags.author);
  set('alarmEmail', flags.alarmEmail);
  Object.assign(fields, scheduleOf(flags));
  set('timeZone', flags.timeZone);
  set('misfireStrategy', flags.misfire);
  set('executorRouteStrategy', flags.route);
  set('executorHandler', flags.handler);
  set('executorParam', flags.param);
  set('executorBlockStrategy', flags.block);
  set('executorTimeout', flags.timeout);
  set('executorFailRetryCount', flags.retry);
  set('glueType', flags.glueType);
  if (flags.script !== undefined) fields.glueSource = readScript(flags.script);
  set('glueRemark', flags.glueRemark);
  set('childJobIds', flags.child);
  return { ...fields, ...flags.data };
}

function scheduleOf(flags: JobFieldFlags): Record<string, unknown> {
  const given = [
    flags.cron === undefined ? undefined : { scheduleType: 'CRON', scheduleConf: flags.cron },
    flags.fixRate === undefined
      ? undefined
      : { scheduleType: 'FIX_RATE', scheduleConf: String(flags.fixRate) },
    flags.fixDelay === undefined
      ? undefined
      : { scheduleType: 'FIX_DELAY', scheduleConf: String(flags.fixDelay) },
    flags.once === undefined ? undefined : { scheduleType: 'ONCE', scheduleConf: flags.once },
    flags.scheduleType === undefined
      ? undefined
      : { scheduleType: flags.scheduleType, scheduleConf: flags.scheduleConf ?? '' },
  ].filter((schedule) => schedule !== undefined);
  if (given.length > 1) {
    throw new CliFailure(
      'TW_ERR_INVALID_OPTION',
      'give one schedule: --cron, --fix-rate, --fix-delay, --once or --schedule-type',
    );
  }
  if (given.length === 0 && flags.scheduleConf !== undefined) return { scheduleConf: flags.scheduleConf };
  return given[0] ?? {};
}

function readScript(file: string): string {
  try {
    return readFileSync(file === '-' ? 0 : file, 'utf8');
  } catch (err) {
    throw new CliFailure(
      'TW_ERR_INVALID_OPTION',
      `cannot read the script ${file}: ${(err as Error).message}`,
    );
  }
}

function parseIdList(value: string): number[] {
  const parts = value
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '');
  for (const part of parts) {
    if (!/^\d+$/.test(part) || Number(part) < 1)
      throw new InvalidArgumentError('must be job ids separated by commas.');
  }
  return parts.map(Number);
}

function parseJsonObject(value: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    throw new InvalidArgumentError('must be a JSON object.');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new InvalidArgumentError('must be a JSON object.');
  }
  return parsed as Record<string, unknown>;
}

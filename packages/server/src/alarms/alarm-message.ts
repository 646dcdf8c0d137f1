/**
 * An alarm, rendered once for every channel: a title, the facts a person on call reads first,
 * the run's own messages, and the job and fire record as the REST API shows them (for the
 * generic webhook, whose receiver is a program). Each channel picks the form it needs: plain
 * text (e-mail, robots' text messages), markdown (DingTalk, WeCom: robot-markdown.ts, which
 * escapes every value for the robot's dialect), the JSON (webhook).
 */
import type { Fire, Job } from '../api/schemas.js';
import type { AppGroupRow, FireRow, JobRow, WorkflowRow, WorkflowRunRow } from '../store/index.js';

/** The run's own messages are capped: a stack trace belongs in the log, not in a chat group. */
const DETAILS_MAX_CHARS = 1_500;

export interface AlarmMessage {
  /** `alarm` for a failed fire, `test` for `testAlarmChannel`. */
  event: 'alarm' | 'test';
  /** One line: the e-mail subject, the robots' title. */
  title: string;
  reason: string;
  /** Label and value, in reading order. */
  facts: ReadonlyArray<readonly [string, string]>;
  /** The dispatch's and the run's messages, capped; empty when there are none. */
  details: string;
  /** When the alarm was raised (epoch ms). */
  raisedAt: number;
  app: { id: number; appName: string; title: string } | null;
  /** The job as the REST API shows it, without its script source. */
  job: Omit<Job, 'glueSource'> | null;
  fire: Fire | null;
  /** The job's `alarmEmail` addresses: where the EMAIL channels send it (besides their own `to`). */
  emailRecipients: readonly string[];
}

export interface AlarmFacts {
  job: JobRow;
  fire: FireRow;
  reason: string;
  app: AppGroupRow | undefined;
  raisedAt: number;
  /** The REST API's shapes of the job and the record (api/jobs.ts toJob, api/fires.ts toFire). */
  jobResource: Job;
  fireResource: Fire;
}

/** The alarm of a failed fire. */
export function buildAlarmMessage(facts: AlarmFacts): AlarmMessage {
  const { job, fire, app, reason } = facts;
  const { glueSource: _glueSource, ...jobResource } = facts.jobResource;
  const appText = app === undefined ? `#${job.app_id}` : `${app.app_name} (${app.title})`;
  const code = fire.handle_code ?? fire.trigger_code;
  return {
    event: 'alarm',
    title: `[Tickwheel] Job #${job.id} ${job.name} failed`,
    reason,
    facts: [
      ['App', appText],
      ['Job', `#${job.id} ${job.name}`],
      ['Fire', `#${fire.id} (${fire.trigger_type})`],
      ['Scheduled at', new Date(fire.scheduled_at).toISOString()],
      ['Executor', fire.executor_address ?? 'none'],
      ['Status', code === null ? fire.status : `${fire.status} (code ${code})`],
      ['Retries left', String(fire.retry_count)],
      ['Reason', reason],
    ],
    details: capped([fire.trigger_msg, fire.handle_msg].filter(isText).join('\n')),
    raisedAt: facts.raisedAt,
    app: app === undefined ? null : { id: app.id, appName: app.app_name, title: app.title },
    job: jobResource,
    fire: facts.fireResource,
    emailRecipients: splitEmails(job.alarm_email),
  };
}

/** The alarm of a failed workflow run. */
export function buildWorkflowAlarmMessage(facts: {
  workflow: WorkflowRow;
  run: WorkflowRunRow;
  reason: string;
  app: AppGroupRow | undefined;
  raisedAt: number;
}): AlarmMessage {
  const { workflow, run, app, reason } = facts;
  const appText = app === undefined ? `#${workflow.app_id}` : `${app.app_name} (${app.title})`;
  return {
    event: 'alarm',
    title: `[Tickwheel] Workflow #${workflow.id} ${workflow.name} failed`,
    reason,
    facts: [
      ['App', appText],
      ['Workflow', `#${workflow.id} ${workflow.name}`],
      ['Run', `#${run.id} (${run.trigger_type})`],
      ['Scheduled at', new Date(run.scheduled_at).toISOString()],
      ['Status', run.status],
      ['Reason', reason],
    ],
    details: '',
    raisedAt: facts.raisedAt,
    app: app === undefined ? null : { id: app.id, appName: app.app_name, title: app.title },
    job: null,
    fire: null,
    emailRecipients: splitEmails(workflow.alarm_email),
  };
}

/** What `testAlarmChannel` sends: says so, so nobody on call mistakes it for a failure. */
export function buildTestMessage(
  channelName: string,
  raisedAt: number,
  emailRecipients: string[],
): AlarmMessage {
  const reason = `a test of alarm channel ${channelName}; nothing failed`;
  return {
    event: 'test',
    title: `[Tickwheel] Test alarm from channel ${channelName}`,
    reason,
    facts: [
      ['Channel', channelName],
      ['Sent at', new Date(raisedAt).toISOString()],
      ['Reason', reason],
    ],
    details: '',
    raisedAt,
    app: null,
    job: null,
    fire: null,
    emailRecipients,
  };
}

/** The alarm as plain text: the title, the facts one a line, then the details. */
export function renderText(message: AlarmMessage): string {
  const lines = [message.title, '', ...message.facts.map(([label, value]) => `${label}: ${value}`)];
  if (message.details !== '') lines.push('', message.details);
  return lines.join('\n');
}

/** `a@x.org, b@y.org` → both; blanks dropped. */
export function splitEmails(list: string): string[] {
  return list
    .split(',')
    .map((address) => address.trim())
    .filter((address) => address !== '');
}

function isText(value: string | null): value is string {
  return value !== null && value.trim() !== '';
}

function capped(text: string): string {
  return text.length <= DETAILS_MAX_CHARS ? text : `${text.slice(0, DETAILS_MAX_CHARS)}…`;
}

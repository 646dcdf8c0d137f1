/**
 * The REST API's TypeBox schemas. The same objects validate requests (Fastify's validator
 * compiler) and describe them in the OpenAPI document (@fastify/swagger), so the two cannot
 * drift. Resources use XXL-JOB's field names in camelCase; times are epoch milliseconds.
 */
import {
  BLOCK_STRATEGIES,
  GLUE_TYPES,
  JOB_FIELD_DEFAULTS,
  MISFIRE_STRATEGIES,
  ROUTE_STRATEGIES,
  SCHEDULE_TYPES,
} from '@tickwheel/protocol';
import { type Static, type TOptional, type TSchema, Type } from 'typebox';
import { ALARM_CHANNEL_TYPES } from '../alarms/channel.js';
import { RETENTION_LIMITS } from '../retention/settings.js';
import { ALARM_ON, BACKOFF_STRATEGIES, MAX_RETRY_DELAY_SECONDS } from '../retries/backoff.js';
import { FIRE_STATUSES } from '../store/index.js';
import { ONE_LINE } from './text-rules.js';

/**
 * Size caps. `executorParam` is capped at 65,535 UTF-8 bytes, the size of MySQL's TEXT column
 * that holds it (on the job and on every fire record); `glueSource` at 1 MiB, far above any
 * script a form is meant for and well inside MEDIUMTEXT. The schemas cap characters; the
 * handlers also check bytes (`checkByteLength`), since a character may take four.
 */
export const LIMITS = {
  executorParamBytes: 65_535,
  glueSourceBytes: 1024 * 1024,
  /** The REST API's body limit: room for the largest glueSource, JSON-escaped. */
  bodyBytes: 4 * 1024 * 1024,
  addresses: 200,
  childJobs: 20,
  pageSize: 200,
  /**
   * The largest `offset` of a listing: 2^53 − 1, the largest integer a JSON number carries
   * exactly, and inside the 64-bit bound SQLite, PostgreSQL (bigint) and MariaDB take for OFFSET.
   */
  maxOffset: Number.MAX_SAFE_INTEGER,
  /** The largest `fromLineNum` of a log read: XXL-JOB's executors read it into a Java int. */
  maxLogLine: 2_147_483_647,
} as const;

export const Id = Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER });
/** The range of a JavaScript Date: a time filter past it would overflow PostgreSQL's bigint. */
const EPOCH_MS_BOUNDS = { minimum: 0, maximum: 8_640_000_000_000_000 } as const;
export const EpochMs = Type.Integer(EPOCH_MS_BOUNDS);
export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

/** The same properties, each optional (bodies where every field has a default or keeps its value). */
function optionalAll<T extends Record<string, TSchema>>(props: T): { [K in keyof T]: TOptional<T[K]> } {
  return Object.fromEntries(Object.entries(props).map(([key, schema]) => [key, Type.Optional(schema)])) as {
    [K in keyof T]: TOptional<T[K]>;
  };
}

// ------------------------------------------------------------------ errors

export const ErrorEnvelope = Type.Object(
  {
    error: Type.Object({
      code: Type.String({ description: 'A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD' }),
      field: Type.Optional(Type.String({ description: 'The input the error is about, e.g. addressList[1]' })),
      message: Type.String(),
    }),
  },
  { description: 'Every error answer' },
);

// ------------------------------------------------------------------ paging

export const IdParams = Type.Object({ id: Id });
export type IdParams = Static<typeof IdParams>;

export const paging = {
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: LIMITS.pageSize, default: 50 })),
  offset: Type.Optional(Type.Integer({ minimum: 0, maximum: LIMITS.maxOffset, default: 0 })),
};

export function Page<T extends TSchema>(item: T) {
  return Type.Object({
    items: Type.Array(item),
    total: Type.Integer({ description: 'Items matching the filters, over all pages' }),
    limit: Type.Integer(),
    offset: Type.Integer(),
  });
}

// ------------------------------------------------------------------ auth

export const LoginBody = Type.Object(
  {
    username: Type.String({ minLength: 1, maxLength: 64 }),
    password: Type.String({ minLength: 1, maxLength: 1024 }),
  },
  { additionalProperties: false },
);
export type LoginBody = Static<typeof LoginBody>;

const Role = Type.Enum(['ADMIN', 'USER'], {
  description: 'ADMIN: every app, users, alarm channels, settings; USER: the apps in appIds',
});
const Username = Type.String({
  minLength: 1,
  maxLength: 64,
  pattern: '^[A-Za-z0-9][A-Za-z0-9._@-]*$',
  ...ONE_LINE,
});
const NewPassword = Type.String({ minLength: 8, maxLength: 1024 });
const AppIds = Type.Array(Id, {
  maxItems: 100,
  uniqueItems: true,
  description: 'The apps a USER may see and operate (ignored for ADMIN)',
});

const MustChangePassword = Type.Boolean({
  description:
    'While true, every operation the user calls but getCurrentUser, changePassword and logout answers 403 TW_ERR_PASSWORD_CHANGE_REQUIRED; changePassword clears it',
});

export const User = Type.Object({
  id: Id,
  username: Type.String(),
  role: Role,
  appIds: Type.Array(Id),
  mustChangePassword: MustChangePassword,
  createdAt: EpochMs,
  updatedAt: EpochMs,
});
export type User = Static<typeof User>;

/** `getCurrentUser`: the user, and for a console session its CSRF token (so a reloaded page can still change state). */
export const CurrentUser = Type.Object({
  ...User.properties,
  csrfToken: Type.Optional(
    Type.String({ description: "The session's CSRF token, for X-CSRF-Token (session requests only)" }),
  ),
});
export type CurrentUser = Static<typeof CurrentUser>;

export const NewUserBody = Type.Object(
  {
    username: Username,
    password: NewPassword,
    role: Type.Optional(Type.Enum(['ADMIN', 'USER'], { default: 'USER' })),
    appIds: Type.Optional(AppIds),
    mustChangePassword: Type.Optional(
      Type.Boolean({
        description:
          'The user must change their password (changePassword) before anything else, e.g. one an admin or an importer chose. Default false.',
      }),
    ),
  },
  { additionalProperties: false },
);
export type NewUserBody = Static<typeof NewUserBody>;

export const UserPatchBody = Type.Object(
  {
    password: Type.Optional(NewPassword),
    role: Type.Optional(Role),
    appIds: Type.Optional(AppIds),
    mustChangePassword: Type.Optional(
      Type.Boolean({
        description:
          'Set (with a new password, for a reset) or clear the need to change the password before anything else; left out, it stays as it is',
      }),
    ),
    revokeApiTokens: Type.Optional(
      Type.Boolean({
        description:
          "Also revoke every API token of the user, at once (scripts using them get 401): for a password reset after the account may have been taken over. Default false: the tokens keep working, with the user's new role.",
      }),
    ),
  },
  { additionalProperties: false },
);
export type UserPatchBody = Static<typeof UserPatchBody>;

export const UserQuery = Type.Object({ ...paging });
export type UserQuery = Static<typeof UserQuery>;

export const ChangePasswordBody = Type.Object(
  {
    currentPassword: Type.String({ minLength: 1, maxLength: 1024 }),
    newPassword: NewPassword,
  },
  { additionalProperties: false },
);
export type ChangePasswordBody = Static<typeof ChangePasswordBody>;

export const LoginResult = Type.Object({
  user: User,
  csrfToken: Type.String({
    description: 'Send it as X-CSRF-Token on every state-changing request made with the session cookie',
  }),
  expiresAt: EpochMs,
});

export const NewApiTokenBody = Type.Object(
  { name: Type.String({ minLength: 1, maxLength: 128, ...ONE_LINE }) },
  { additionalProperties: false },
);
export type NewApiTokenBody = Static<typeof NewApiTokenBody>;

export const CreatedApiToken = Type.Object({
  id: Id,
  name: Type.String(),
  token: Type.String({ description: 'The bearer token. Shown once: only its hash is stored.' }),
  createdAt: EpochMs,
});

export const ApiToken = Type.Object({
  id: Id,
  name: Type.String(),
  createdAt: EpochMs,
  lastUsedAt: Nullable(EpochMs),
});

export const ApiTokenList = Type.Object({ items: Type.Array(ApiToken) });

// ------------------------------------------------------------------ audit

export const AUDIT_ACTIONS = [
  'CREATE',
  'UPDATE',
  'DELETE',
  'START',
  'STOP',
  'TRIGGER',
  'KILL',
  'RESTORE',
  'CHANGE_PASSWORD',
  'ROTATE_TOKEN',
  'RETRY_NODE',
  'MARK_NODE',
] as const;
export const AUDIT_TARGETS = [
  'APP',
  'JOB',
  'FIRE',
  'USER',
  'API_TOKEN',
  'SCRIPT',
  'ALARM_CHANNEL',
  'WORKFLOW',
  'WORKFLOW_RUN',
] as const;

export const AuditEntry = Type.Object({
  id: Id,
  at: EpochMs,
  userId: Id,
  username: Type.String(),
  action: Type.String({ description: AUDIT_ACTIONS.join(' | ') }),
  targetType: Type.String({ description: AUDIT_TARGETS.join(' | ') }),
  targetId: Nullable(Id),
  appId: Nullable(Id),
  detail: Type.Record(Type.String(), Type.Unknown(), {
    description: 'What changed: field names and ids, never a password, token or script',
  }),
});
export type AuditEntry = Static<typeof AuditEntry>;

export const AuditQuery = Type.Object({
  userId: Type.Optional(Id),
  action: Type.Optional(Type.Enum([...AUDIT_ACTIONS])),
  targetType: Type.Optional(Type.Enum([...AUDIT_TARGETS])),
  targetId: Type.Optional(Id),
  appId: Type.Optional(Id),
  from: Type.Optional(Type.Integer({ ...EPOCH_MS_BOUNDS, description: 'at >= from (epoch ms)' })),
  to: Type.Optional(Type.Integer({ ...EPOCH_MS_BOUNDS, description: 'at < to (epoch ms)' })),
  ...paging,
});
export type AuditQuery = Static<typeof AuditQuery>;

// ------------------------------------------------------------------ apps

const AppName = Type.String({
  minLength: 1,
  maxLength: 64,
  pattern: '^[A-Za-z0-9][A-Za-z0-9._-]*$',
  ...ONE_LINE,
});
const Title = Type.String({ minLength: 1, maxLength: 128, ...ONE_LINE });
/** Where an importer took a job or an app from; one line, null clears it. */
export const Origin = (what: 'job' | 'app' | 'workflow') =>
  Type.Union([Type.String({ maxLength: 255, ...ONE_LINE }), Type.Null()], {
    description: `Where the ${what} was imported from (set by importers, e.g. \`xxl-job mysql://db:3306/xxl_job #12\`); null for ${what}s made here`,
  });
const AddressType = Type.Enum(['AUTO', 'MANUAL']);
const AddressList = Type.Array(Type.String({ minLength: 1, maxLength: 255, ...ONE_LINE }), {
  maxItems: LIMITS.addresses,
  description: 'Executor base URLs, http(s)://host:port/ (MANUAL apps)',
});

/** How the server reaches an executor (listAppExecutors, an app's onlineExecutors). */
const TRANSPORT_DESCRIPTION =
  'How the server reaches it: http, called at its address; http-pull, an executor that opens no port and keeps a connection to a server node (its address is pull://<instance>/); redis, an executor that opens no port and reads its runs from a Redis stream (its address is stream://<instance>/)';

export const App = Type.Object({
  id: Id,
  appName: Type.String(),
  title: Type.String(),
  addressType: AddressType,
  addressList: Type.Array(Type.String(), {
    description: 'MANUAL: the addresses typed in; AUTO: the last list the registry monitor wrote',
  }),
  onlineAddresses: Type.Array(Type.String(), {
    description:
      "Where the app's fires go: AUTO, the addresses with a live registry heartbeat; MANUAL, the addresses typed in (called without registering)",
  }),
  onlineExecutors: Type.Array(
    Type.Object({
      address: Type.String(),
      transport: Type.Union([Type.Literal('http'), Type.Literal('http-pull'), Type.Literal('redis')], {
        description: TRANSPORT_DESCRIPTION,
      }),
    }),
    {
      description:
        'onlineAddresses with how the server reaches each (listAppExecutors has their heartbeats too)',
    },
  ),
  credential: Type.Union([Type.Literal('app'), Type.Literal('installation')], {
    description:
      "Which executor token the app's executors use: 'app', its own (createApp and rotateAppToken answer it once); 'installation', the installation-wide token (compatibility mode: every app created before per-app tokens, or with useInstallationToken, until rotateAppToken gives it its own)",
  }),
  previousTokenValidUntil: Nullable(
    Type.Integer({
      minimum: 0,
      maximum: 8_640_000_000_000_000,
      description:
        'While a rotation overlaps: until when the token it replaced is still accepted (epoch ms); null otherwise',
    }),
  ),
  origin: Origin('app'),
  createdAt: EpochMs,
  updatedAt: EpochMs,
});
export type App = Static<typeof App>;

/** An app with its new executor token, answered once (createApp, rotateAppToken). */
export const AppWithToken = Type.Object({
  ...App.properties,
  accessToken: Nullable(
    Type.String({
      description:
        "The app's executor token, shown this once (configure the app's executors with it); null for an app created with useInstallationToken",
    }),
  ),
});
export type AppWithToken = Static<typeof AppWithToken>;

export const RotateAppTokenBody = Type.Object(
  {
    previousTokenValidUntil: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: 8_640_000_000_000_000,
        description:
          'Until when (epoch ms) the token being replaced stays valid, so executors can move over; at most 30 days ahead. Default: 24 hours from now. A time already past revokes it at once.',
      }),
    ),
  },
  { additionalProperties: false },
);
export type RotateAppTokenBody = Static<typeof RotateAppTokenBody>;

export const AppExecutor = Type.Object({
  address: Type.String({
    description:
      'The base URL the executor registered, or (MANUAL apps) one of the addresses typed in for the app',
  }),
  protocol: Type.String({ description: 'The protocol generation it speaks: G2, G3 or G4' }),
  lastBeatAt: Type.Union([EpochMs, Type.Null()], {
    description:
      'Its last registry heartbeat; null for a listed address of a MANUAL app that does not register (it is called as G2)',
  }),
  transport: Type.Union([Type.Literal('http'), Type.Literal('http-pull'), Type.Literal('redis')], {
    description: TRANSPORT_DESCRIPTION,
  }),
});
export type AppExecutor = Static<typeof AppExecutor>;

export const AppHandlers = Type.Object({
  items: Type.Array(Type.String(), {
    description:
      'The handler names the online executors of the app registered, each once, sorted (code-point order)',
  }),
  onlineExecutors: Type.Integer({ minimum: 0, description: 'Executors of the app online now' }),
  reportingExecutors: Type.Integer({
    minimum: 0,
    description:
      'Those of them that sent their handler names (Tickwheel executors); XXL-JOB executors send none',
  }),
});
export type AppHandlers = Static<typeof AppHandlers>;

export const NewAppBody = Type.Object(
  {
    appName: AppName,
    title: Title,
    addressType: Type.Optional(AddressType),
    addressList: Type.Optional(AddressList),
    useInstallationToken: Type.Optional(
      Type.Boolean({
        description:
          "Compatibility mode: the app's executors use the installation-wide token instead of a token of the app's own (for a fleet that cannot be reconfigured). Default false.",
      }),
    ),
    origin: Type.Optional(Origin('app')),
  },
  { additionalProperties: false },
);
export type NewAppBody = Static<typeof NewAppBody>;

export const AppPatchBody = Type.Object(
  {
    title: Type.Optional(Title),
    addressType: Type.Optional(AddressType),
    addressList: Type.Optional(AddressList),
    origin: Type.Optional(Origin('app')),
  },
  { additionalProperties: false },
);
export type AppPatchBody = Static<typeof AppPatchBody>;

export const AppQuery = Type.Object({
  appName: Type.Optional(Type.String({ maxLength: 64, description: 'Substring of the app name' })),
  title: Type.Optional(Type.String({ maxLength: 128, description: 'Substring of the title' })),
  ...paging,
});
export type AppQuery = Static<typeof AppQuery>;

// ------------------------------------------------------------------ jobs

const delaySeconds = (description: string) =>
  Type.Integer({ minimum: 0, maximum: MAX_RETRY_DELAY_SECONDS, description });

/** How long a failed fire waits before each retry (retries/backoff.ts). */
export const RetryBackoff = Type.Object(
  {
    strategy: Type.Enum([...BACKOFF_STRATEGIES], {
      description:
        'FIXED: delaySeconds before every retry; EXPONENTIAL: delaySeconds · 2^(retry − 1), at most maxDelaySeconds',
    }),
    delaySeconds: delaySeconds('Wait before the first retry (FIXED: before every retry)'),
    maxDelaySeconds: delaySeconds('EXPONENTIAL: the longest wait; at least delaySeconds'),
  },
  {
    additionalProperties: false,
    description: `Default ${JOB_FIELD_DEFAULTS.retryBackoff.strategy}, ${JOB_FIELD_DEFAULTS.retryBackoff.delaySeconds} s (maxDelaySeconds ${JOB_FIELD_DEFAULTS.retryBackoff.maxDelaySeconds})`,
  },
);
export type RetryBackoff = Static<typeof RetryBackoff>;

const jobFields = {
  name: Type.String({ minLength: 1, maxLength: 255, ...ONE_LINE }),
  author: Type.String({ maxLength: 64, ...ONE_LINE }),
  alarmEmail: Type.String({
    maxLength: 255,
    ...ONE_LINE,
    description:
      "Comma-separated e-mail addresses the job's alarms are mailed to (through its EMAIL channels, or every enabled one when it picks none)",
  }),
  alarmChannelIds: Type.Array(Id, {
    maxItems: 20,
    uniqueItems: true,
    description: 'The alarm channels (listAlarmChannels) a failure of this job is sent through',
  }),
  scheduleType: Type.Enum([...SCHEDULE_TYPES]),
  scheduleConf: Type.String({ maxLength: 255, ...ONE_LINE }),
  timeZone: Type.String({
    minLength: 1,
    maxLength: 64,
    ...ONE_LINE,
    description: 'IANA time zone of a CRON schedule',
  }),
  misfireStrategy: Type.Enum([...MISFIRE_STRATEGIES]),
  executorRouteStrategy: Type.Enum([...ROUTE_STRATEGIES]),
  executorHandler: Type.String({ maxLength: 255, ...ONE_LINE }),
  executorParam: Type.String({ maxLength: LIMITS.executorParamBytes }),
  executorBlockStrategy: Type.Enum([...BLOCK_STRATEGIES]),
  executorTimeout: Type.Integer({ minimum: 0, maximum: 2_147_483_647, description: 'Seconds; 0 = none' }),
  executorFailRetryCount: Type.Integer({
    minimum: 0,
    maximum: 1000,
    description: 'Retries of a failed, timed-out or undispatched fire, each a RETRY fire record',
  }),
  retryBackoff: RetryBackoff,
  alarmOn: Type.Enum([...ALARM_ON], {
    description:
      'EVERY_FAILURE: alarm each failed attempt (default); FINAL_FAILURE: only when no retry is left',
  }),
  glueType: Type.Enum([...GLUE_TYPES]),
  glueSource: Type.String({ maxLength: LIMITS.glueSourceBytes }),
  glueRemark: Type.String({ maxLength: 128, ...ONE_LINE }),
  childJobIds: Type.Array(Id, { maxItems: LIMITS.childJobs, uniqueItems: true }),
  origin: Origin('job'),
};

export const Job = Type.Object({
  id: Id,
  appId: Id,
  name: Type.String(),
  author: Type.String(),
  alarmEmail: Type.String(),
  alarmChannelIds: Type.Array(Id),
  scheduleType: Type.String(),
  scheduleConf: Type.String(),
  timeZone: Type.String(),
  misfireStrategy: Type.String(),
  executorRouteStrategy: Type.String(),
  executorHandler: Type.String(),
  executorParam: Type.String(),
  executorBlockStrategy: Type.String(),
  executorTimeout: Type.Integer(),
  executorFailRetryCount: Type.Integer(),
  retryBackoff: RetryBackoff,
  alarmOn: Type.String(),
  glueType: Type.String(),
  glueSource: Type.String(),
  glueRemark: Type.String(),
  glueUpdatedAt: EpochMs,
  childJobIds: Type.Array(Id),
  origin: Origin('job'),
  triggerStatus: Type.Integer({ description: '1 = scheduled, 0 = stopped' }),
  nextFireAt: Nullable(EpochMs),
  createdAt: EpochMs,
  updatedAt: EpochMs,
});
export type Job = Static<typeof Job>;

export const NewJobBody = Type.Object(
  {
    appId: Id,
    ...optionalAll(jobFields),
    name: jobFields.name,
    triggerStatus: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: 1,
        description: `1 starts the job at once; default ${JOB_FIELD_DEFAULTS.triggerStatus}`,
      }),
    ),
  },
  { additionalProperties: false },
);
export type NewJobBody = Static<typeof NewJobBody>;

export const JobPatchBody = Type.Object(
  { appId: Type.Optional(Id), ...optionalAll(jobFields) },
  { additionalProperties: false },
);
export type JobPatchBody = Static<typeof JobPatchBody>;

export const JobQuery = Type.Object({
  appId: Type.Optional(Id),
  name: Type.Optional(Type.String({ maxLength: 255, description: 'Substring of the name' })),
  executorHandler: Type.Optional(Type.String({ maxLength: 255, description: 'Substring of the handler' })),
  author: Type.Optional(Type.String({ maxLength: 64, description: 'Substring of the author' })),
  triggerStatus: Type.Optional(Type.Integer({ minimum: 0, maximum: 1 })),
  ...paging,
});
export type JobQuery = Static<typeof JobQuery>;

export const TriggerBody = Type.Object(
  {
    executorParam: Type.Optional(
      Type.String({
        maxLength: LIMITS.executorParamBytes,
        description: "Replaces the job's param for this run",
      }),
    ),
    addressList: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 255, ...ONE_LINE }), {
        maxItems: LIMITS.addresses,
        description:
          "Executors to route among instead of the online ones; each must be one of the app's known addresses",
      }),
    ),
  },
  { additionalProperties: false },
);
export type TriggerBody = Static<typeof TriggerBody>;

export const TriggerResult = Type.Object({
  fireIds: Type.Array(Id, { description: 'The fire records the trigger created' }),
});

// ------------------------------------------------------------------ scripts

const GlueRemark = Type.String({
  minLength: 1,
  maxLength: 128,
  ...ONE_LINE,
  description: 'What changed, in a few words',
});

export const ScriptVersion = Type.Object({
  id: Id,
  jobId: Id,
  glueType: Type.String(),
  glueSource: Type.String(),
  glueRemark: Type.String(),
  createdAt: EpochMs,
});
export type ScriptVersion = Static<typeof ScriptVersion>;

export const ScriptVersionList = Type.Object({
  items: Type.Array(ScriptVersion, { description: 'Newest first; the last 30 are kept' }),
});

export const ScriptBody = Type.Object(
  {
    glueType: Type.Optional(
      Type.Enum(
        GLUE_TYPES.filter((type) => type !== 'BEAN'),
        { description: "The script's language; default the job's own (a BEAN job must name one)" },
      ),
    ),
    glueSource: Type.String({ maxLength: LIMITS.glueSourceBytes }),
    glueRemark: GlueRemark,
  },
  { additionalProperties: false },
);
export type ScriptBody = Static<typeof ScriptBody>;

export const ScriptVersionParams = Type.Object({ id: Id, versionId: Id });
export type ScriptVersionParams = Static<typeof ScriptVersionParams>;

// ------------------------------------------------------------------ schedules

export const PreviewQuery = Type.Object({
  scheduleType: Type.Enum([...SCHEDULE_TYPES]),
  scheduleConf: Type.Optional(Type.String({ maxLength: 255 })),
  timeZone: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
  count: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 5 })),
  from: Type.Optional(EpochMs),
});
export type PreviewQuery = Static<typeof PreviewQuery>;

export const PreviewResult = Type.Object({
  from: EpochMs,
  nextFireTimes: Type.Array(EpochMs, {
    description: 'Ascending; empty when the schedule never fires again (and always for NONE)',
  }),
});

// ------------------------------------------------------------------ fires

export const Fire = Type.Object({
  id: Id,
  jobId: Id,
  appId: Id,
  parentFireId: Nullable(Id),
  scheduledAt: EpochMs,
  triggerAt: Nullable(EpochMs),
  triggerType: Type.String(),
  executorAddress: Nullable(Type.String()),
  executorHandler: Type.String(),
  executorParam: Nullable(Type.String()),
  shardIndex: Type.Integer(),
  shardTotal: Type.Integer(),
  triggerCode: Nullable(Type.Integer()),
  triggerMsg: Nullable(Type.String()),
  handleAt: Nullable(EpochMs),
  handleCode: Nullable(Type.Integer()),
  handleMsg: Nullable(Type.String()),
  status: Type.String({ description: FIRE_STATUSES.join(' | ') }),
  retryCount: Type.Integer({ description: 'Retries this fire may still get' }),
  retryFireId: Nullable(
    Type.Integer({
      minimum: 1,
      description:
        'The RETRY record that retries this one (its parentFireId points back here); null when not retried',
    }),
  ),
  triggeredByFireId: Nullable(
    Type.Integer({
      minimum: 1,
      description: "PARENT fires: the parent job's record whose success triggered this one",
    }),
  ),
  alarmStatus: Type.Enum(['NONE', 'SENT', 'FAILED'], {
    description: 'NONE: not alarmed; SENT: every alarm channel took it; FAILED: one did not (see alarmMsg)',
  }),
  alarmMsg: Nullable(Type.String({ description: "Each alarm channel's outcome, e.g. `EMAIL ops: sent`" })),
  workflowRunId: Nullable(
    Type.Integer({ minimum: 1, description: 'A workflow node’s fire: the workflow run it belongs to' }),
  ),
  workflowNodeKey: Nullable(Type.String({ description: 'A workflow node’s fire: the node it runs' })),
  output: Type.Optional(
    Type.Unknown({ description: "A workflow node's output, as its handler returned it" }),
  ),
});
export type Fire = Static<typeof Fire>;

export const FireQuery = Type.Object({
  appId: Type.Optional(Id),
  jobId: Type.Optional(Id),
  status: Type.Optional(
    Type.Array(Type.Enum([...FIRE_STATUSES]), {
      description: 'One status, or several (repeat the parameter)',
    }),
  ),
  from: Type.Optional(Type.Integer({ ...EPOCH_MS_BOUNDS, description: 'scheduledAt >= from (epoch ms)' })),
  to: Type.Optional(Type.Integer({ ...EPOCH_MS_BOUNDS, description: 'scheduledAt < to (epoch ms)' })),
  ...paging,
});
export type FireQuery = Static<typeof FireQuery>;

export const LogQuery = Type.Object({
  fromLineNum: Type.Optional(Type.Integer({ minimum: 1, maximum: LIMITS.maxLogLine, default: 1 })),
});
export type LogQuery = Static<typeof LogQuery>;

export const FireLog = Type.Object({
  fromLineNum: Type.Integer(),
  toLineNum: Type.Integer({ description: 'Ask for toLineNum + 1 next' }),
  logContent: Type.String(),
  isEnd: Type.Boolean({ description: 'True when the run is over and every line was read' }),
});

export const FireKillScope = Type.Object({
  scope: Type.Union([Type.Literal('run'), Type.Literal('job')], {
    description:
      "run: the executor stops this fire's run alone (a Tickwheel executor). job: it stops the job's running run and drops every run of the job queued on it (an XXL-JOB executor's kill acts per job); each is recorded killed",
  }),
  executorAddress: Type.String(),
  jobId: Type.Integer(),
});
export type FireKillScope = Static<typeof FireKillScope>;

// ------------------------------------------------------------------ alarm channels

const AlarmChannelName = Type.String({ minLength: 1, maxLength: 64, pattern: '^\\S(.*\\S)?$', ...ONE_LINE });
const AlarmChannelConfig = Type.Record(Type.String(), Type.Unknown(), {
  description:
    "The type's settings. EMAIL: host, port, security (STARTTLS | TLS | NONE), username, password, from, to[], rejectUnauthorized. " +
    'WEBHOOK: url, secret. DINGTALK: url, secret, msgType (markdown | text), atMobiles[], atAll. ' +
    'WECOM: url, msgType (markdown | text), mentionedMobiles[]. FEISHU: url, secret, msgType (post | text). ' +
    'Answers show password and secret as "***" and the tokens in URLs masked; send them back unchanged to keep them.',
});

export const AlarmChannel = Type.Object({
  id: Id,
  name: Type.String(),
  type: Type.String({ description: ALARM_CHANNEL_TYPES.join(' | ') }),
  enabled: Type.Boolean(),
  config: AlarmChannelConfig,
  createdAt: EpochMs,
  updatedAt: EpochMs,
});
export type AlarmChannel = Static<typeof AlarmChannel>;

export const NewAlarmChannelBody = Type.Object(
  {
    name: AlarmChannelName,
    type: Type.Enum([...ALARM_CHANNEL_TYPES]),
    enabled: Type.Optional(Type.Boolean({ default: true })),
    config: AlarmChannelConfig,
  },
  { additionalProperties: false },
);
export type NewAlarmChannelBody = Static<typeof NewAlarmChannelBody>;

export const AlarmChannelPatchBody = Type.Object(
  {
    name: Type.Optional(AlarmChannelName),
    type: Type.Optional(Type.Enum([...ALARM_CHANNEL_TYPES])),
    enabled: Type.Optional(Type.Boolean()),
    config: Type.Optional(
      Type.Record(Type.String(), Type.Unknown(), {
        description:
          'Settings to change: given fields replace the stored ones, null removes one, "***" (or a masked URL as answered) keeps it; a new type needs its whole config',
      }),
    ),
  },
  { additionalProperties: false },
);
export type AlarmChannelPatchBody = Static<typeof AlarmChannelPatchBody>;

export const AlarmChannelQuery = Type.Object({
  type: Type.Optional(Type.Enum([...ALARM_CHANNEL_TYPES])),
  ...paging,
});
export type AlarmChannelQuery = Static<typeof AlarmChannelQuery>;

export const TestAlarmChannelBody = Type.Object(
  {
    alarmEmail: Type.Optional(
      Type.String({
        maxLength: 255,
        ...ONE_LINE,
        description: "EMAIL: comma-separated addresses to send the test to, besides the channel's own `to`",
      }),
    ),
  },
  { additionalProperties: false },
);
export type TestAlarmChannelBody = Static<typeof TestAlarmChannelBody>;

export const AlarmChannelTestResult = Type.Object({
  sent: Type.Boolean({ description: 'The channel took the test alarm' }),
  error: Nullable(Type.String({ description: 'Why not, when it did not' })),
  durationMs: Type.Integer(),
});

// ------------------------------------------------------------------ dashboard

/** Fires counted by result, lateness and run time, over one day or several (all of them merged). */
const ReportFigures = {
  total: Type.Integer({ description: 'Fire records scheduled in the period' }),
  succeeded: Type.Integer(),
  failed: Type.Integer(),
  timeout: Type.Integer(),
  killed: Type.Integer(),
  skipped: Type.Integer(),
  dispatchFailed: Type.Integer(),
  running: Type.Integer({ description: 'pending or dispatched when last computed' }),
  latenessP50Ms: Nullable(
    Type.Integer({
      description: 'Median of dispatch time − scheduled time; null when nothing was dispatched',
    }),
  ),
  latenessP99Ms: Nullable(Type.Integer({ description: '99th percentile of dispatch time − scheduled time' })),
  meanRunMs: Nullable(
    Type.Integer({ description: 'Mean of result time − dispatch time over finished runs' }),
  ),
};

export const DashboardQuery = Type.Object({
  days: Type.Optional(
    Type.Integer({ enum: [7, 30], default: 7, description: 'Length of the series, ending today (UTC)' }),
  ),
  appId: Type.Optional(Id),
});
export type DashboardQuery = Static<typeof DashboardQuery>;

export const Dashboard = Type.Object({
  apps: Type.Integer({ description: "Apps in scope (the caller's, or the one asked for)" }),
  jobs: Type.Integer(),
  enabledJobs: Type.Integer(),
  executorsOnline: Type.Integer(),
  days: Type.Integer({ description: 'Days in the series' }),
  appId: Type.Optional(Id),
  totals: Type.Object(ReportFigures, { description: 'The whole series merged' }),
  series: Type.Array(
    Type.Object({ day: Type.String({ description: 'YYYY-MM-DD, UTC' }), ...ReportFigures }),
    { description: 'One entry per day, oldest first, today last; days without fires count zero' },
  ),
  computedAt: Nullable(EpochMs),
  workflows: Type.Object(
    {
      total: Type.Integer(),
      running: Type.Integer({ description: 'Workflows whose schedule is on' }),
      runsToday: Type.Object(
        {
          succeeded: Type.Integer(),
          failed: Type.Integer(),
          running: Type.Integer({ description: 'Running or waiting' }),
          stopped: Type.Integer(),
        },
        { description: 'Runs made today (UTC), by status' },
      ),
    },
    { description: 'Workflows in scope and their runs' },
  ),
});

// ------------------------------------------------------------------ retention

export const RetentionSettings = Type.Object(
  {
    retentionDays: Type.Integer({
      minimum: RETENTION_LIMITS.minDays,
      maximum: RETENTION_LIMITS.maxDays,
      description: `Fire records scheduled more than this many days ago are deleted (default ${RETENTION_LIMITS.defaultDays})`,
    }),
  },
  { additionalProperties: false },
);
export type RetentionSettings = Static<typeof RetentionSettings>;

export const ClearFiresBody = Type.Object(
  {
    appId: Type.Optional(Id),
    jobId: Type.Optional(Id),
    before: Type.Optional(EpochMs),
    keepLast: Type.Optional(Type.Integer({ minimum: 0, maximum: 10_000_000 })),
  },
  {
    additionalProperties: false,
    description:
      'Which finished records to delete: those of an app (or of one job) scheduled before `before`, and/or all but the newest `keepLast` (0: all)',
  },
);
export type ClearFiresBody = Static<typeof ClearFiresBody>;

export const ClearFiresResult = Type.Object({
  deleted: Type.Integer({ description: 'Fire records deleted' }),
});

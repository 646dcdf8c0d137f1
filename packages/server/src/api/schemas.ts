/**
 * The REST API's TypeBox schemas. The same objects validate requests (Fastify's validator
 * compiler) and describe them in the OpenAPI document (@fastify/swagger), so the two cannot
 * drift. Resources use XXL-JOB's field names in camelCase; times are epoch milliseconds.
 */
import {
  BLOCK_STRATEGIES,
  GLUE_TYPES,
  MISFIRE_STRATEGIES,
  ROUTE_STRATEGIES,
  SCHEDULE_TYPES,
} from '@tickwheel/protocol';
import { type Static, type TOptional, type TSchema, Type } from 'typebox';
import { FIRE_STATUSES } from '../store/index.js';

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
} as const;

const Id = Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER });
const EpochMs = Type.Integer({ minimum: 0, maximum: 8_640_000_000_000_000 });
const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

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

const paging = {
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: LIMITS.pageSize, default: 50 })),
  offset: Type.Optional(Type.Integer({ minimum: 0, default: 0 })),
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

export const User = Type.Object({
  id: Id,
  username: Type.String(),
  role: Type.Enum(['admin', 'user']),
});

export const LoginResult = Type.Object({
  user: User,
  csrfToken: Type.String({
    description: 'Send it as X-CSRF-Token on every state-changing request made with the session cookie',
  }),
  expiresAt: EpochMs,
});

export const NewApiTokenBody = Type.Object(
  { name: Type.String({ minLength: 1, maxLength: 128 }) },
  { additionalProperties: false },
);
export type NewApiTokenBody = Static<typeof NewApiTokenBody>;

export const CreatedApiToken = Type.Object({
  id: Id,
  name: Type.String(),
  token: Type.String({ description: 'The bearer token. Shown once: only its hash is stored.' }),
  createdAt: EpochMs,
});

// ------------------------------------------------------------------ apps

const AppName = Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9][A-Za-z0-9._-]*$' });
const Title = Type.String({ minLength: 1, maxLength: 128 });
const AddressType = Type.Enum(['AUTO', 'MANUAL']);
const AddressList = Type.Array(Type.String({ minLength: 1, maxLength: 255 }), {
  maxItems: LIMITS.addresses,
  description: 'Executor base URLs, http(s)://host:port/ (MANUAL apps)',
});

export const App = Type.Object({
  id: Id,
  appName: Type.String(),
  title: Type.String(),
  addressType: AddressType,
  addressList: Type.Array(Type.String(), {
    description: 'MANUAL: the addresses typed in; AUTO: the last list the registry monitor wrote',
  }),
  onlineAddresses: Type.Array(Type.String(), { description: 'Addresses with a live registry heartbeat' }),
  createdAt: EpochMs,
  updatedAt: EpochMs,
});
export type App = Static<typeof App>;

export const NewAppBody = Type.Object(
  {
    appName: AppName,
    title: Title,
    addressType: Type.Optional(AddressType),
    addressList: Type.Optional(AddressList),
  },
  { additionalProperties: false },
);
export type NewAppBody = Static<typeof NewAppBody>;

export const AppPatchBody = Type.Object(
  {
    title: Type.Optional(Title),
    addressType: Type.Optional(AddressType),
    addressList: Type.Optional(AddressList),
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

const jobFields = {
  name: Type.String({ minLength: 1, maxLength: 255 }),
  author: Type.String({ maxLength: 64 }),
  alarmEmail: Type.String({ maxLength: 255, description: 'Comma-separated e-mail addresses' }),
  scheduleType: Type.Enum([...SCHEDULE_TYPES]),
  scheduleConf: Type.String({ maxLength: 255 }),
  timeZone: Type.String({ minLength: 1, maxLength: 64, description: 'IANA time zone of a CRON schedule' }),
  misfireStrategy: Type.Enum([...MISFIRE_STRATEGIES]),
  executorRouteStrategy: Type.Enum([...ROUTE_STRATEGIES]),
  executorHandler: Type.String({ maxLength: 255 }),
  executorParam: Type.String({ maxLength: LIMITS.executorParamBytes }),
  executorBlockStrategy: Type.Enum([...BLOCK_STRATEGIES]),
  executorTimeout: Type.Integer({ minimum: 0, maximum: 2_147_483_647, description: 'Seconds; 0 = none' }),
  executorFailRetryCount: Type.Integer({ minimum: 0, maximum: 1000 }),
  glueType: Type.Enum([...GLUE_TYPES]),
  glueSource: Type.String({ maxLength: LIMITS.glueSourceBytes }),
  glueRemark: Type.String({ maxLength: 128 }),
  childJobIds: Type.Array(Id, { maxItems: LIMITS.childJobs, uniqueItems: true }),
};

export const Job = Type.Object({
  id: Id,
  appId: Id,
  name: Type.String(),
  author: Type.String(),
  alarmEmail: Type.String(),
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
  glueType: Type.String(),
  glueSource: Type.String(),
  glueRemark: Type.String(),
  glueUpdatedAt: EpochMs,
  childJobIds: Type.Array(Id),
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
      Type.Integer({ minimum: 0, maximum: 1, description: '1 starts the job at once; default 0' }),
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
      Type.Array(Type.String({ minLength: 1, maxLength: 255 }), {
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
  retryCount: Type.Integer(),
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
  from: Type.Optional(Type.Integer({ minimum: 0, description: 'scheduledAt >= from (epoch ms)' })),
  to: Type.Optional(Type.Integer({ minimum: 0, description: 'scheduledAt < to (epoch ms)' })),
  ...paging,
});
export type FireQuery = Static<typeof FireQuery>;

export const LogQuery = Type.Object({
  fromLineNum: Type.Optional(Type.Integer({ minimum: 1, default: 1 })),
});
export type LogQuery = Static<typeof LogQuery>;

export const FireLog = Type.Object({
  fromLineNum: Type.Integer(),
  toLineNum: Type.Integer({ description: 'Ask for toLineNum + 1 next' }),
  logContent: Type.String(),
  isEnd: Type.Boolean({ description: 'True when the run is over and every line was read' }),
});

// ------------------------------------------------------------------ dashboard

export const Dashboard = Type.Object({
  apps: Type.Integer(),
  jobs: Type.Integer(),
  enabledJobs: Type.Integer(),
  executorsOnline: Type.Integer(),
  firesToday: Type.Object(
    {
      day: Type.String({ description: 'YYYY-MM-DD, UTC' }),
      total: Type.Integer(),
      byStatus: Type.Record(Type.String(), Type.Integer()),
    },
    { description: 'Fires scheduled today (UTC), by status' },
  ),
});

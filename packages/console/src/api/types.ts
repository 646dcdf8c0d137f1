/**
 * Resource types of the REST API, named after what the console calls them (the generic `Ok`,
 * `Body` and `Query` come from @tickwheel/api-client).
 */
import type { Ok } from '@tickwheel/api-client';

export type { Body, Ok, Query } from '@tickwheel/api-client';

export type CurrentUser = Ok<'getCurrentUser'>;
export type App = Ok<'getApp'>;
export type AppExecutor = Ok<'listAppExecutors'>['items'][number];
export type Job = Ok<'getJob'>;
export type Fire = Ok<'getFire'>;
export type FireLog = Ok<'getFireLog'>;
export type User = Ok<'getCurrentUser'>;
export type Dashboard = Ok<'getDashboard'>;
export type AlarmChannel = Ok<'getAlarmChannel'>;
export type ApiToken = Ok<'listApiTokens'>['items'][number];
export type AuditEntry = Ok<'listAudit'>['items'][number];
export type ScriptVersion = Ok<'listScriptVersions'>['items'][number];
export type FireStatus = Fire['status'];
/** An app with its new executor token, answered once by createApp and rotateAppToken. */
export type AppWithToken = Ok<'createApp'>;

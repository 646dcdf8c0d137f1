/** Resource types of the REST API, named after what the console calls them. */
import type { operations } from './schema';

type Json<R> = R extends { content: { 'application/json': infer T } } ? T : never;
/** The 200 (or 201) answer of an operation. */
export type Ok<O extends keyof operations> = operations[O]['responses'] extends { 200: infer R }
  ? Json<R>
  : operations[O]['responses'] extends { 201: infer R }
    ? Json<R>
    : never;
/** The JSON body an operation takes. */
export type Body<O extends keyof operations> = operations[O] extends {
  requestBody?: { content: { 'application/json': infer B } };
}
  ? B
  : never;
/** The query parameters an operation takes. */
export type Query<O extends keyof operations> = operations[O] extends { parameters: { query?: infer Q } }
  ? NonNullable<Q>
  : never;

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

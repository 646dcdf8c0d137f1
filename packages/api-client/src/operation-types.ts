/**
 * One operation's types, by its operationId: what it answers, the body and the query it takes.
 *
 * @example
 * type Job = Ok<'getJob'>;
 * type NewJob = Body<'createJob'>;
 * type JobFilters = Query<'listJobs'>;
 */
import type { operations } from './schema.js';

/** An operationId of the API (`getJob`, `createApp`, ...). */
export type OperationId = keyof operations;

type Json<R> = R extends { content: { 'application/json': infer T } } ? T : never;

/** The 200 (or 201) answer of an operation. */
export type Ok<O extends OperationId> = operations[O]['responses'] extends { 200: infer R }
  ? Json<R>
  : operations[O]['responses'] extends { 201: infer R }
    ? Json<R>
    : never;

/** The JSON body an operation takes. */
export type Body<O extends OperationId> = operations[O] extends {
  requestBody?: { content: { 'application/json': infer B } };
}
  ? B
  : never;

/** The query parameters an operation takes. */
export type Query<O extends OperationId> = operations[O] extends { parameters: { query?: infer Q } }
  ? NonNullable<Q>
  : never;

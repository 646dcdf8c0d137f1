/**
 * @tickwheel/protocol — the server⇄executor wire protocol (XXL-JOB compatible), the shared
 * enums, a job's defaults, the error catalogue and schedule arithmetic.
 */
export * from './access-tokens.js';
export * from './constants.js';
export * from './enums.js';
export * from './errors.js';
export * from './executor-address.js';
export * from './job-defaults.js';
export * from './messages.js';
export * from './pull.js';
export * from './redis-transport.js';
export * from './schedule/index.js';
export { fieldName, parseWith } from './validation.js';
export * from './workflows.js';

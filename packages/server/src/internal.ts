/**
 * @tickwheel/server/internal — the server's inside, for Tickwheel's own command line and
 * benchmarks (and the tests' fixtures): the store (`openStore`, its repositories and row types,
 * `JOB_DEFAULTS`, the fire statuses, …), `storeOf(server)` (the store a server made by
 * `createServer` runs on, which `TickwheelServer` does not hand out) and the few settings and
 * helpers they share with the server.
 *
 * Unstable: no semver promise. Anything here may change or go in any release, a patch release
 * included. A program embedding the server imports `@tickwheel/server` and uses the REST API.
 */
export { maskDatabasePassword } from './migrate-database.js';
export type { ServerInternalOptions } from './options.js';
export { RETENTION_BATCH_DEFAULTS } from './retention/delete-pacing.js';
export { storeOf } from './server-store.js';
export * from './store/index.js';

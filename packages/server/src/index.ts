/**
 * @tickwheel/server — the Tickwheel scheduling server.
 *
 * What a program embedding the server uses, and nothing else: the list is in README.md (Public
 * surface) and test/public-surface.test.ts holds the two together. Tickwheel's own command line
 * and benchmarks reach the store through `@tickwheel/server/internal` (internal.ts), which makes
 * no promise.
 *
 * @example
 * import { createServer } from '@tickwheel/server';
 *
 * const server = await createServer({ port: 8080, dataDir: './data' });
 * if (server.firstStartSecrets.adminPassword) console.log('admin password:', server.firstStartSecrets.adminPassword);
 * process.once('SIGTERM', () => void server.stop());
 */

/** Errors the server throws (an invalid option, a failed migration), with `code` and `field`. */
export { isTickwheelError, TickwheelError } from '@tickwheel/protocol';
export { type MigrateDatabaseOptions, type MigrationReport, migrateDatabase } from './migrate-database.js';
export { LOG_LEVELS, type LogLevel, SERVER_DEFAULTS, SERVER_ENV, type ServerOptions } from './options.js';
export {
  RETENTION_LIMITS,
  type RetentionSettings,
  readRetentionSettings,
  writeRetentionSettings,
} from './retention/settings.js';
export {
  type PasswordReset,
  type ResetPasswordOptions,
  resetPassword,
} from './security/reset-password.js';
export { createServer, type FirstStartSecrets, type TickwheelServer } from './server.js';
export type { TriggeredFire, TriggerJobRequest } from './trigger.js';

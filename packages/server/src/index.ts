/**
 * @tickwheel/server — the Tickwheel scheduling server.
 *
 * @example
 * import { createServer } from '@tickwheel/server';
 *
 * const server = await createServer({ port: 8080, dataDir: './data' });
 * if (server.firstStartSecrets.adminPassword) console.log('admin password:', server.firstStartSecrets.adminPassword);
 * process.once('SIGTERM', () => void server.stop());
 */
export {
  type MigrateDatabaseOptions,
  type MigrationReport,
  maskDatabasePassword,
  migrateDatabase,
} from './migrate-database.js';
export {
  LOG_LEVELS,
  type LogLevel,
  SERVER_DEFAULTS,
  SERVER_ENV,
  type ServerInternalOptions,
  type ServerOptions,
} from './options.js';
export { RETENTION_BATCH_DEFAULTS } from './retention/delete-pacing.js';
export {
  RETENTION_LIMITS,
  type RetentionSettings,
  readRetentionSettings,
  writeRetentionSettings,
} from './retention/settings.js';
export { INITIAL_SECRETS_FILE_NAME } from './security/initial-secrets-file.js';
export {
  type PasswordReset,
  type ResetPasswordOptions,
  resetPassword,
} from './security/reset-password.js';
export { createServer, type FirstStartSecrets, type TickwheelServer } from './server.js';
export * from './store/index.js';
export type { TriggeredFire, TriggerJobRequest } from './trigger.js';

/**
 * The migrations of each dialect, in order. They are TypeScript modules exporting their SQL (not
 * .sql files) so `tsc -b` carries them into dist with no copy step: the compiled server finds
 * its migrations wherever it is installed. Add a migration as `<dialect>/NNNN_name.ts` for all
 * three dialects and list it here with the same version number.
 */
import type { DialectName } from '../database-url.js';
import mysqlInit from './mysql/0001_init.js';
import mysqlRetries from './mysql/0002_retries.js';
import mysqlAlarms from './mysql/0003_alarms.js';
import mysqlUsersAudit from './mysql/0004_users_audit.js';
import mysqlReportsRetention from './mysql/0005_reports_retention.js';
import mysqlOwedChildrenAlarms from './mysql/0006_owed_children_alarms.js';
import mysqlTriggerAddresses from './mysql/0007_trigger_addresses.js';
import mysqlRegistryHandlers from './mysql/0008_registry_handlers.js';
import mysqlExecutorInstances from './mysql/0009_executor_instances.js';
import mysqlSendFence from './mysql/0010_send_fence.js';
import mysqlAppTokens from './mysql/0011_app_tokens.js';
import mysqlOriginPasswordChange from './mysql/0012_origin_password_change.js';
import mysqlPullConnections from './mysql/0013_pull_connections.js';
import mysqlWorkflows from './mysql/0014_workflows.js';
import mysqlFireAddressIndex from './mysql/0015_fire_address_index.js';
import mysqlFireClaimIndex from './mysql/0016_fire_claim_index.js';
import mysqlFireRetryDueIndex from './mysql/0017_fire_retry_due_index.js';
import postgresInit from './postgres/0001_init.js';
import postgresRetries from './postgres/0002_retries.js';
import postgresAlarms from './postgres/0003_alarms.js';
import postgresUsersAudit from './postgres/0004_users_audit.js';
import postgresReportsRetention from './postgres/0005_reports_retention.js';
import postgresOwedChildrenAlarms from './postgres/0006_owed_children_alarms.js';
import postgresTriggerAddresses from './postgres/0007_trigger_addresses.js';
import postgresRegistryHandlers from './postgres/0008_registry_handlers.js';
import postgresExecutorInstances from './postgres/0009_executor_instances.js';
import postgresSendFence from './postgres/0010_send_fence.js';
import postgresAppTokens from './postgres/0011_app_tokens.js';
import postgresOriginPasswordChange from './postgres/0012_origin_password_change.js';
import postgresPullConnections from './postgres/0013_pull_connections.js';
import postgresWorkflows from './postgres/0014_workflows.js';
import postgresFireAddressIndex from './postgres/0015_fire_address_index.js';
import postgresFireClaimIndex from './postgres/0016_fire_claim_index.js';
import postgresFireRetryDueIndex from './postgres/0017_fire_retry_due_index.js';
import sqliteInit from './sqlite/0001_init.js';
import sqliteRetries from './sqlite/0002_retries.js';
import sqliteAlarms from './sqlite/0003_alarms.js';
import sqliteUsersAudit from './sqlite/0004_users_audit.js';
import sqliteReportsRetention from './sqlite/0005_reports_retention.js';
import sqliteOwedChildrenAlarms from './sqlite/0006_owed_children_alarms.js';
import sqliteTriggerAddresses from './sqlite/0007_trigger_addresses.js';
import sqliteRegistryHandlers from './sqlite/0008_registry_handlers.js';
import sqliteExecutorInstances from './sqlite/0009_executor_instances.js';
import sqliteSendFence from './sqlite/0010_send_fence.js';
import sqliteAppTokens from './sqlite/0011_app_tokens.js';
import sqliteOriginPasswordChange from './sqlite/0012_origin_password_change.js';
import sqlitePullConnections from './sqlite/0013_pull_connections.js';
import sqliteWorkflows from './sqlite/0014_workflows.js';
import sqliteFireAddressIndex from './sqlite/0015_fire_address_index.js';
import sqliteFireClaimIndex from './sqlite/0016_fire_claim_index.js';
import sqliteFireRetryDueIndex from './sqlite/0017_fire_retry_due_index.js';

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export const MIGRATIONS: Readonly<Record<DialectName, readonly Migration[]>> = {
  sqlite: [
    { version: 1, name: 'init', sql: sqliteInit },
    { version: 2, name: 'retries', sql: sqliteRetries },
    { version: 3, name: 'alarms', sql: sqliteAlarms },
    { version: 4, name: 'users_audit', sql: sqliteUsersAudit },
    { version: 5, name: 'reports_retention', sql: sqliteReportsRetention },
    { version: 6, name: 'owed_children_alarms', sql: sqliteOwedChildrenAlarms },
    { version: 7, name: 'trigger_addresses', sql: sqliteTriggerAddresses },
    { version: 8, name: 'registry_handlers', sql: sqliteRegistryHandlers },
    { version: 9, name: 'executor_instances', sql: sqliteExecutorInstances },
    { version: 10, name: 'send_fence', sql: sqliteSendFence },
    { version: 11, name: 'app_tokens', sql: sqliteAppTokens },
    { version: 12, name: 'origin_password_change', sql: sqliteOriginPasswordChange },
    { version: 13, name: 'pull_connections', sql: sqlitePullConnections },
    { version: 14, name: 'workflows', sql: sqliteWorkflows },
    { version: 15, name: 'fire_address_index', sql: sqliteFireAddressIndex },
    { version: 16, name: 'fire_claim_index', sql: sqliteFireClaimIndex },
    { version: 17, name: 'fire_retry_due_index', sql: sqliteFireRetryDueIndex },
  ],
  postgres: [
    { version: 1, name: 'init', sql: postgresInit },
    { version: 2, name: 'retries', sql: postgresRetries },
    { version: 3, name: 'alarms', sql: postgresAlarms },
    { version: 4, name: 'users_audit', sql: postgresUsersAudit },
    { version: 5, name: 'reports_retention', sql: postgresReportsRetention },
    { version: 6, name: 'owed_children_alarms', sql: postgresOwedChildrenAlarms },
    { version: 7, name: 'trigger_addresses', sql: postgresTriggerAddresses },
    { version: 8, name: 'registry_handlers', sql: postgresRegistryHandlers },
    { version: 9, name: 'executor_instances', sql: postgresExecutorInstances },
    { version: 10, name: 'send_fence', sql: postgresSendFence },
    { version: 11, name: 'app_tokens', sql: postgresAppTokens },
    { version: 12, name: 'origin_password_change', sql: postgresOriginPasswordChange },
    { version: 13, name: 'pull_connections', sql: postgresPullConnections },
    { version: 14, name: 'workflows', sql: postgresWorkflows },
    { version: 15, name: 'fire_address_index', sql: postgresFireAddressIndex },
    { version: 16, name: 'fire_claim_index', sql: postgresFireClaimIndex },
    { version: 17, name: 'fire_retry_due_index', sql: postgresFireRetryDueIndex },
  ],
  mysql: [
    { version: 1, name: 'init', sql: mysqlInit },
    { version: 2, name: 'retries', sql: mysqlRetries },
    { version: 3, name: 'alarms', sql: mysqlAlarms },
    { version: 4, name: 'users_audit', sql: mysqlUsersAudit },
    { version: 5, name: 'reports_retention', sql: mysqlReportsRetention },
    { version: 6, name: 'owed_children_alarms', sql: mysqlOwedChildrenAlarms },
    { version: 7, name: 'trigger_addresses', sql: mysqlTriggerAddresses },
    { version: 8, name: 'registry_handlers', sql: mysqlRegistryHandlers },
    { version: 9, name: 'executor_instances', sql: mysqlExecutorInstances },
    { version: 10, name: 'send_fence', sql: mysqlSendFence },
    { version: 11, name: 'app_tokens', sql: mysqlAppTokens },
    { version: 12, name: 'origin_password_change', sql: mysqlOriginPasswordChange },
    { version: 13, name: 'pull_connections', sql: mysqlPullConnections },
    { version: 14, name: 'workflows', sql: mysqlWorkflows },
    { version: 15, name: 'fire_address_index', sql: mysqlFireAddressIndex },
    { version: 16, name: 'fire_claim_index', sql: mysqlFireClaimIndex },
    { version: 17, name: 'fire_retry_due_index', sql: mysqlFireRetryDueIndex },
  ],
};

/** Splits a migration into statements: each ends with `;` at the end of a line. */
export function splitStatements(sql: string): string[] {
  return sql
    .split(/;[ \t]*(?:\r?\n|$)/)
    .map((statement) => statement.trim())
    .filter((statement) => statement.length > 0);
}

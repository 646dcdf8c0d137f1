/**
 * The package's public surface is a decision, not a side effect: its runtime exports are the list
 * below, and the same list is in README.md's "Public surface" section. Exporting something more
 * (or less) fails here until both the list and the README say so. The package is imported by its
 * name, so this checks the built `dist` a user gets (`npm run build` first).
 */
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';

const SURFACE = [
  'ACCESS_TOKEN_HEADER',
  'APP_NAME_HEADER',
  'BEAT_INTERVAL_MS',
  'BLOCK_STRATEGIES',
  'CALLBACK_ADDRESS_HEADER',
  'CALL_STREAM_MAX_LEN',
  'DEAD_TIMEOUT_MS',
  'DEFAULT_CALL_TIMEOUT_MS',
  'ErrorCodes',
  'GENERATE_TOKEN_HINT',
  'GLUE_TYPES',
  'HANDLE_CODES',
  'HandleCode',
  'INSTANCE_HEADER',
  'JOB_FIELD_DEFAULTS',
  'JSON_CONTENT_TYPE',
  'KILL_RUN_BY_LOG_ID',
  'KILL_RUN_HEADER',
  'KNOWN_PUBLIC_TOKENS',
  'MAX_BODY_BYTES',
  'MAX_EXECUTOR_ADDRESS_LENGTH',
  'MAX_HANDLER_NAME_LENGTH',
  'MAX_HANDLE_MSG_LENGTH',
  'MAX_INSTANCE_ID_LENGTH',
  'MAX_PULL_FRAME_BYTES',
  'MAX_REGISTRY_GROUP_LENGTH',
  'MAX_REGISTRY_HANDLERS',
  'MAX_REGISTRY_KEY_LENGTH',
  'MAX_RUN_BATCH',
  'MIN_ACCESS_TOKEN_LENGTH',
  'MISFIRE_STRATEGIES',
  'PROTOCOL_GENERATIONS',
  'PULL_PATH',
  'PULL_PING_INTERVAL_MS',
  'PULL_RECONNECT_MAX_MS',
  'PULL_RECONNECT_MIN_MS',
  'REDIS_KEY_PREFIX',
  'REGISTRY_GROUP_EXECUTOR',
  'ROUTE_STRATEGIES',
  'RUN_BATCH_CALL',
  'RUN_BATCH_HEADER',
  'RUN_GROUP',
  'RUN_STREAM_MAX_LEN',
  'ReturnCode',
  'SCHEDULE_TYPES',
  'SCRIPT_GLUE',
  'STREAM_TTL_SECONDS',
  'TRANSPORTS',
  'TRIGGER_TYPES',
  'TickwheelError',
  'WORKFLOW_CONCURRENCIES',
  'WORKFLOW_EDGE_CONDITIONS',
  'WORKFLOW_LIMITS',
  'WORKFLOW_NODE_STATUSES',
  'WORKFLOW_NODE_TYPES',
  'WORKFLOW_RUN_STATUSES',
  'WORKFLOW_SCHEDULE_TYPES',
  'WORKFLOW_TRIGGER_TYPES',
  'WireMessages',
  'callStreamKey',
  'callUrl',
  'capHandleMsg',
  'checkWorkflowGraph',
  'encodeCallbackBody',
  'encodeLogParam',
  'executorAddressProblem',
  'executorRegistryParam',
  'fieldName',
  'fillWorkflowParam',
  'findWorkflowCycle',
  'isInstanceId',
  'isKnownHandleCode',
  'isPullAddress',
  'isScriptGlueType',
  'isStreamAddress',
  'isTickwheelError',
  'nextFireTimes',
  'parseCallbackBody',
  'parseIdleBeatParam',
  'parseKillParam',
  'parseLogParam',
  'parseLogResult',
  'parsePullFrame',
  'parseRegistryHandlers',
  'parseRegistryInstance',
  'parseRegistryParam',
  'parseReturnT',
  'parseTriggerParam',
  'parseWith',
  'pullAddress',
  'pullInstanceOf',
  'replyChannel',
  'returnFail',
  'returnSuccess',
  'runStreamKey',
  'streamAddress',
  'streamInstanceOf',
  'validateSchedule',
  'weakTokenProblem',
  'workflowParamReferences',
];

/** The names in the first `text` block of the README's "Public surface" section. */
async function listedInReadme(): Promise<string[]> {
  const readme = await readFile(new URL('../README.md', import.meta.url), 'utf8');
  const section = readme.split(/^## /m).find((part) => part.startsWith('Public surface\n'));
  const block = /```text\n([^`]*)```/.exec(section ?? '')?.[1];
  return block?.split(/\s+/).filter((name) => name !== '') ?? [];
}

describe('the public surface of @tickwheel/protocol', () => {
  it('exports at runtime exactly the listed names', async () => {
    const protocol = await import('@tickwheel/protocol');
    expect(Object.keys(protocol).sort()).toEqual(SURFACE);
  });

  it('is listed, the same, in the README', async () => {
    expect(await listedInReadme()).toEqual(SURFACE);
  });
});

/**
 * `api/registry` and `api/registryRemove`: executors announcing themselves (every 30 s) and
 * leaving (on a graceful stop). A registration is written to the registry table, so every server
 * node sees it, and put into this node's directory at once, so the executor can be dispatched to
 * before the next refresh.
 */
import {
  isTickwheelError,
  type ProtocolGeneration,
  parseRegistryParam,
  type RegistryParam,
  type ReturnT,
  returnFail,
  returnSuccess,
  WireMessages,
} from '@tickwheel/protocol';
import type { Logger } from 'pino';
import type { ExecutorDirectory } from '../executors/directory.js';
import type { RegistryRepository } from '../store/index.js';

export interface RegistryCallDeps {
  registry: Pick<RegistryRepository, 'heartbeat' | 'removeEntry'>;
  directory: Pick<ExecutorDirectory, 'markOnline' | 'markOffline'>;
  clock: { now(): number };
  logger: Pick<Logger, 'info' | 'debug'>;
}

/**
 * Records a heartbeat. `protocol` is the generation the executor is to be called in: G4 when it
 * sent the `XXL-JOB-APPNAME` header (XXL-JOB 3.5 executors expect `trigger` and both headers
 * back), else G2 (G2 and G3 executors take the same calls).
 */
export async function registerExecutor(
  deps: RegistryCallDeps,
  body: unknown,
  protocol: ProtocolGeneration,
): Promise<ReturnT<null>> {
  const param = registryParamOf(body);
  if (param === null) return returnFail(WireMessages.illegalArgument);
  const now = deps.clock.now();
  await deps.registry.heartbeat(entryOf(param), protocol, now);
  deps.directory.markOnline(param.registryKey, param.registryValue, protocol, now);
  deps.logger.debug({ app: param.registryKey, address: param.registryValue, protocol }, 'executor heartbeat');
  return returnSuccess(null);
}

/** Removes a registration; removing one that is not there is still a success (it is gone). */
export async function unregisterExecutor(deps: RegistryCallDeps, body: unknown): Promise<ReturnT<null>> {
  const param = registryParamOf(body);
  if (param === null) return returnFail(WireMessages.illegalArgument);
  await deps.registry.removeEntry(entryOf(param));
  deps.directory.markOffline(param.registryKey, param.registryValue);
  deps.logger.info({ app: param.registryKey, address: param.registryValue }, 'executor removed itself');
  return returnSuccess(null);
}

/** The registry body, or null for XXL-JOB's `Illegal Argument.` (a blank, missing or non-string field). */
function registryParamOf(body: unknown): RegistryParam | null {
  try {
    return parseRegistryParam(body);
  } catch (err) {
    if (isTickwheelError(err)) return null;
    throw err;
  }
}

function entryOf(param: RegistryParam) {
  // Stored as sent (trimmed): XXL-JOB matches registry rows and fire records on the exact string.
  return { group: param.registryGroup, key: param.registryKey, value: param.registryValue };
}

/**
 * `api/registry` and `api/registryRemove`: executors announcing themselves (every 30 s) and
 * leaving (on a graceful stop). A registration is written to the registry table, so every server
 * node sees it, and put into this node's directory at once, so the executor can be dispatched to
 * before the next refresh.
 *
 * A Tickwheel executor also sends its handler names (the optional `handlers` field, PROTOCOL.md);
 * they are stored with the registration for the console's handler suggestions. A `handlers` field
 * out of bounds is ignored with a warning, never refused: the rest of the body is a valid XXL-JOB
 * registration, and refusing it would take the executor offline over a convenience.
 *
 * It also sends its instance id (the optional `instance` field, new at each start of its
 * process), stored with the registration. A registration whose instance differs from the one
 * stored for its entry (or that finds no entry) means the process at the address restarted: the
 * runs still dispatched there that another instance accepted are failed at once
 * (`onInstanceRegistered`, the lost-run monitor). An `instance` field that is not a well-formed
 * id is ignored with a warning, like a bad `handlers` field.
 *
 * A pull executor (the `http-pull` transport, protocol pull.ts) registers `pull://<instance>/`
 * as its address: accepted here (and only here, not in an app's typed address list), as the
 * protocol's check takes http(s) URLs only. So does a Redis-stream executor (the `redis`
 * transport, protocol redis-transport.ts) with `stream://<instance>/`.
 */
import {
  isPullAddress,
  isStreamAddress,
  isTickwheelError,
  type ProtocolGeneration,
  parseRegistryHandlers,
  parseRegistryInstance,
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
import type { AppCredentials, TokenScope } from './app-credentials.js';

export interface RegistryCallDeps {
  credentials: Pick<AppCredentials, 'mayActFor'>;
  registry: Pick<RegistryRepository, 'heartbeat' | 'removeEntry'>;
  directory: Pick<ExecutorDirectory, 'markOnline' | 'markOffline'>;
  clock: { now(): number };
  logger: Pick<Logger, 'info' | 'debug' | 'warn' | 'error'>;
  /** Addresses already warned about an ignored `handlers` field, with the reason (logged once each). */
  ignoredHandlers?: IgnoredHandlersLog;
  /** Addresses already warned about an ignored `instance` field (logged once each). */
  ignoredInstances?: IgnoredHandlersLog;
  /**
   * Called when a registration brings an instance other than the one stored for its entry:
   * fails the runs other instances had at the address (LostRunMonitor.failRestartedRuns). An
   * error it throws is logged; the registration stands (the lost-run sweep catches up).
   */
  onInstanceRegistered?: (address: string, instance: string) => Promise<unknown>;
}

/** Remembers which bad `handlers` fields were logged, so a beat every 30 s does not repeat it. */
export class IgnoredHandlersLog {
  private readonly reasons = new Map<string, string>();

  /** True the first time this address sends this reason (and again after it sent a good field). */
  isNew(address: string, reason: string): boolean {
    if (this.reasons.get(address) === reason) return false;
    // Bounded: a long-lived server forgets old entries rather than growing with every address.
    if (this.reasons.size >= 10_000) this.reasons.clear();
    this.reasons.set(address, reason);
    return true;
  }

  forget(address: string): void {
    this.reasons.delete(address);
  }
}

/**
 * Records a heartbeat. `protocol` is the generation the executor is to be called in: G4 when it
 * sent the `XXL-JOB-APPNAME` header (XXL-JOB 3.5 executors expect `trigger` and both headers
 * back), else G2 (G2 and G3 executors take the same calls). `scope`: what the call's token acts
 * for; a registration under an app it does not act for is refused.
 */
export async function registerExecutor(
  deps: RegistryCallDeps,
  body: unknown,
  protocol: ProtocolGeneration,
  scope: TokenScope,
): Promise<ReturnT<null>> {
  const param = registryParamOf(body);
  if (param === null) return returnFail(WireMessages.illegalArgument);
  const refused = await refusedFor(deps, scope, param);
  if (refused !== undefined) return refused;
  const handlers = handlerNamesOf(deps, body, param);
  const instance = instanceOf(deps, body, param);
  const now = deps.clock.now();
  const before = await deps.registry.heartbeat(
    entryOf(param),
    protocol,
    now,
    handlers,
    instance,
    scope.tokenId,
  );
  deps.directory.markOnline(param.registryKey, param.registryValue, protocol, now, scope.tokenId);
  deps.logger.debug({ app: param.registryKey, address: param.registryValue, protocol }, 'executor heartbeat');
  if (instance !== undefined && before !== instance && deps.onInstanceRegistered !== undefined) {
    if (before != null) {
      deps.logger.info(
        { app: param.registryKey, address: param.registryValue, instance, previous: before },
        'executor restarted at the same address; failing the runs the previous instance had',
      );
    }
    try {
      await deps.onInstanceRegistered(param.registryValue, instance);
    } catch (err) {
      deps.logger.error(
        { err, app: param.registryKey, address: param.registryValue, instance },
        'could not fail the runs of the previous executor instance; the lost-run sweep will',
      );
    }
  }
  return returnSuccess(null);
}

/** The `instance` field of a registration; undefined when absent or malformed (logged once). */
function instanceOf(deps: RegistryCallDeps, body: unknown, param: RegistryParam): string | undefined {
  try {
    const instance = parseRegistryInstance(body);
    deps.ignoredInstances?.forget(param.registryValue);
    return instance;
  } catch (err) {
    if (!isTickwheelError(err)) throw err;
    if (deps.ignoredInstances?.isNew(param.registryValue, err.message) ?? true) {
      deps.logger.warn(
        { app: param.registryKey, address: param.registryValue, field: err.field, reason: err.message },
        'executor registration accepted, its instance field ignored',
      );
    }
    return undefined;
  }
}

/** The refusal of a call under an app `scope` does not act for (logged); undefined when it does. */
async function refusedFor(
  deps: RegistryCallDeps,
  scope: TokenScope,
  param: RegistryParam,
): Promise<ReturnT<null> | undefined> {
  if (await deps.credentials.mayActFor(scope, param.registryKey)) return undefined;
  deps.logger.warn(
    {
      app: param.registryKey,
      address: param.registryValue,
      token: scope.kind === 'app' ? scope.appName : 'installation',
    },
    'executor registration refused: its access token does not belong to the app it names',
  );
  return returnFail(WireMessages.wrongAppToken(param.registryKey));
}

/** Removes a registration; removing one that is not there is still a success (it is gone). */
export async function unregisterExecutor(
  deps: RegistryCallDeps,
  body: unknown,
  scope: TokenScope,
): Promise<ReturnT<null>> {
  const param = registryParamOf(body);
  if (param === null) return returnFail(WireMessages.illegalArgument);
  const refused = await refusedFor(deps, scope, param);
  if (refused !== undefined) return refused;
  await deps.registry.removeEntry(entryOf(param));
  deps.directory.markOffline(param.registryKey, param.registryValue);
  deps.logger.info({ app: param.registryKey, address: param.registryValue }, 'executor removed itself');
  return returnSuccess(null);
}

/**
 * The registry body, or null for XXL-JOB's `Illegal Argument.` (a blank, missing or non-string
 * field). A pull address (`pull://<instance>/`) or a stream address (`stream://<instance>/`) is
 * taken as the address; the other fields are checked as ever.
 */
function registryParamOf(body: unknown): RegistryParam | null {
  try {
    const value =
      body !== null && typeof body === 'object'
        ? (body as { registryValue?: unknown }).registryValue
        : undefined;
    const pull = typeof value === 'string' ? value.trim() : '';
    if (
      (pull.startsWith('pull://') && isPullAddress(pull)) ||
      (pull.startsWith('stream://') && isStreamAddress(pull))
    ) {
      const param = parseRegistryParam({ ...(body as object), registryValue: PULL_STAND_IN });
      return { ...param, registryValue: pull };
    }
    return parseRegistryParam(body);
  } catch (err) {
    if (isTickwheelError(err)) return null;
    throw err;
  }
}

/** The `handlers` field of a registration; undefined when absent or out of bounds (logged once). */
function handlerNamesOf(deps: RegistryCallDeps, body: unknown, param: RegistryParam): string[] | undefined {
  try {
    const handlers = parseRegistryHandlers(body);
    deps.ignoredHandlers?.forget(param.registryValue);
    return handlers;
  } catch (err) {
    if (!isTickwheelError(err)) throw err;
    if (deps.ignoredHandlers?.isNew(param.registryValue, err.message) ?? true) {
      deps.logger.warn(
        { app: param.registryKey, address: param.registryValue, field: err.field, reason: err.message },
        'executor registration accepted, its handlers field ignored',
      );
    }
    return undefined;
  }
}

/** An address the protocol's check takes, standing in for a pull or stream address while the rest is checked. */
const PULL_STAND_IN = 'http://pull.invalid/';

function entryOf(param: RegistryParam) {
  // Stored as sent (trimmed): XXL-JOB matches registry rows and fire records on the exact string.
  return { group: param.registryGroup, key: param.registryKey, value: param.registryValue };
}

/**
 * Shared set-up of the dispatch tests: real Tickwheel executors on loopback (started with the
 * executor package's own test fixture, each wired to its own recording test server), fires with
 * sensible defaults, and an address nothing listens on.
 */
import { once } from 'node:events';
import net from 'node:net';
import type { Executor } from '@tickwheel/executor';
import type { ProtocolGeneration } from '@tickwheel/protocol';
import { type ExecutorFixture, startExecutor, TOKEN } from '@tickwheel/test-fixtures/executor-fixture';
import { afterEach } from 'vitest';
import { Dispatcher, type FireToDispatch } from '../../src/dispatch/dispatcher.js';
import type { ExecutorAddress } from '../../src/dispatch/executor-client.js';
import type { DispatchOptions } from '../../src/dispatch/options.js';

export { TOKEN };
export const APP = 'test-app';

/**
 * A test file's clean-ups, each run after every test, and a maker of dispatchers (the shared
 * token, `defaults`, then the call's options) that are closed there. Call at the file's top level.
 */
export function closedAfterEach(defaults: Partial<DispatchOptions> = {}): {
  cleanups: Array<() => Promise<unknown>>;
  dispatcher: (options?: Partial<DispatchOptions>) => Dispatcher;
} {
  const cleanups: Array<() => Promise<unknown>> = [];
  afterEach(async () => {
    await Promise.all(cleanups.splice(0).map((c) => c()));
  });
  const dispatcher = (options: Partial<DispatchOptions> = {}): Dispatcher => {
    const d = new Dispatcher({ accessToken: TOKEN, ...defaults, ...options });
    cleanups.push(() => d.close());
    return d;
  };
  return { cleanups, dispatcher };
}

/** Starts `count` real executors of app `test-app` with the same handlers and token. */
export async function startExecutors(
  count: number,
  register: (ex: Executor) => void,
  protocol: ProtocolGeneration = 'G2',
): Promise<ExecutorFixture[]> {
  return Promise.all(
    Array.from({ length: count }, () => startExecutor(register, { appName: APP, protocol })),
  );
}

export async function closeAll(fixtures: Array<{ close(): Promise<void> }>): Promise<void> {
  await Promise.all(fixtures.map((f) => f.close()));
}

/** The executor as the registry would list it. */
export function target(address: string, protocol: ProtocolGeneration = 'G2', appName = APP): ExecutorAddress {
  return { address, protocol, appName };
}

/** Registry entries of started executors. */
export function targetsOf(
  fixtures: ExecutorFixture[],
  protocol: ProtocolGeneration = 'G2',
): ExecutorAddress[] {
  return fixtures.map((f) => target(f.address, protocol));
}

/** Sorted as the dispatcher sorts candidates. */
export function sortedAddresses(targets: ExecutorAddress[]): string[] {
  return targets.map((t) => t.address).sort();
}

let nextFireId = 50_000;

/** A CRON fire of a BEAN job with a fresh fire id. */
export function fire(fields: Partial<FireToDispatch> = {}): FireToDispatch {
  nextFireId += 1;
  return {
    fireId: nextFireId,
    jobId: 1,
    appName: APP,
    scheduledAt: Date.now(),
    triggerType: 'CRON',
    executorHandler: 'hello',
    executorParam: '',
    executorBlockStrategy: 'SERIAL_EXECUTION',
    executorTimeout: 0,
    glueType: 'BEAN',
    glueSource: '',
    glueUpdatedAt: 0,
    routeStrategy: 'FIRST',
    ...fields,
  };
}

/** An address on loopback where nothing listens (a port that was free a moment ago). */
export async function deadAddress(): Promise<string> {
  const server = net.createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}/`;
}

/** A promise and its resolver, to hold a handler until the test lets it go. */
export function gate(): { promise: Promise<void>; open(): void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { promise, open };
}

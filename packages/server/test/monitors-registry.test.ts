import { ManualClock } from '@tickwheel/test-fixtures/manual-clock';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ExecutorDirectory } from '../src/executors/directory.js';
import { RegistryMonitor } from '../src/monitors/registry.js';
import { MAINTENANCE_LEASE, type Store } from '../src/store/index.js';
import { createTestDatabase, DIALECTS, type TestDatabase } from './helpers/databases.js';
import { createAppWithJob, RecordingMetrics, silentLogger } from './helpers/executor-api-server.js';
import { MONITOR_TIMINGS } from './helpers/monitor-timings.js';

const T0 = Date.parse('2026-03-01T10:00:00Z');

async function until(predicate: () => boolean | Promise<boolean>, what: string, timeoutMs = 5_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await predicate())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe.each(DIALECTS)('registry monitor on %s', (dialect) => {
  let database: TestDatabase;
  let store: Store;
  let clock: ManualClock;
  let directory: ExecutorDirectory;
  let metrics: RecordingMetrics;
  let monitor: RegistryMonitor;

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    store = await database.open();
  });
  beforeEach(async () => {
    await store.db.deleteFrom('registry').execute();
    await store.db.deleteFrom('lease').execute();
    clock = new ManualClock(T0);
    metrics = new RecordingMetrics();
    directory = new ExecutorDirectory({
      apps: store.apps,
      registry: store.registry,
      clock,
      metrics,
      deadTimeoutMs: MONITOR_TIMINGS.registry.deadTimeoutMs,
    });
    monitor = new RegistryMonitor({
      ...MONITOR_TIMINGS.registry,
      registry: store.registry,
      apps: store.apps,
      directory,
      lease: { leases: store.leases, nodeId: 'node-a' },
      clock,
      logger: silentLogger,
    });
  });
  afterEach(async () => {
    await monitor.stop();
  });
  afterAll(async () => {
    await database.drop();
  });

  const beat = (appName: string, address: string, at: number, protocol: 'G2' | 'G4' = 'G2') =>
    store.registry.heartbeat({ group: 'EXECUTOR', key: appName, value: address }, protocol, at);

  it('a registration unseen for 90 s is deleted and goes offline; one seen since stays', async () => {
    const { appName } = await createAppWithJob(store, T0);
    await beat(appName, 'http://10.0.0.1:9999/', T0);
    await beat(appName, 'http://10.0.0.2:9999/', T0 + 60_000);
    await monitor.start();
    expect(directory.addressesOf(appName)).toHaveLength(2);
    clock.stall(90_001);
    const sweep = await monitor.sweep();
    expect(sweep).toMatchObject({ held: true, deleted: 1 });
    expect(directory.addressesOf(appName).map((e) => e.address)).toEqual(['http://10.0.0.2:9999/']);
    expect((await store.registry.listAlive(0, appName)).map((r) => r.registry_value)).toEqual([
      'http://10.0.0.2:9999/',
    ]);
    expect(metrics.online).toBe(1);
  });

  it('an executor leaves the dispatch list and the online list the moment it turns dead, before any refresh; a heartbeat brings it back', async () => {
    const { appName } = await createAppWithJob(store, T0);
    await beat(appName, 'http://10.0.0.1:9999/', T0);
    await beat(appName, 'http://10.0.0.2:9999/', T0 + 10_000);
    await directory.refresh();
    expect(directory.addressesOf(appName)).toHaveLength(2);
    // No refresh, no sweep: only the clock moves. 90 s after 10.0.0.1 was seen, it is dead to the
    // lost-run rule, and so to the dispatch list.
    clock.stall(89_999);
    expect(directory.addressesOf(appName)).toHaveLength(2);
    expect(directory.registeredOf(appName)).toHaveLength(2);
    clock.stall(1);
    expect(directory.addressesOf(appName).map((e) => e.address)).toEqual(['http://10.0.0.2:9999/']);
    expect(directory.registeredOf(appName).map((e) => e.address)).toEqual(['http://10.0.0.2:9999/']);
    clock.stall(10_000);
    expect(directory.addressesOf(appName)).toEqual([]);
    expect(directory.registeredOf(appName)).toEqual([]);
    directory.markOnline(appName, 'http://10.0.0.1:9999/', 'G2', clock.now());
    expect(directory.addressesOf(appName).map((e) => e.address)).toEqual(['http://10.0.0.1:9999/']);
    expect(directory.registeredOf(appName).map((e) => e.address)).toEqual(['http://10.0.0.1:9999/']);
  });

  it('the clean-up runs every 30 s on its own', async () => {
    const { appName } = await createAppWithJob(store, T0);
    await beat(appName, 'http://10.0.0.1:9999/', T0);
    clock.stall(100_000);
    await monitor.start();
    await clock.advance(29_999);
    expect(await store.registry.listAlive(0, appName)).toHaveLength(1);
    await clock.advance(1);
    await until(async () => (await store.registry.listAlive(0, appName)).length === 0, 'the dead row to go');
    await until(() => directory.addressesOf(appName).length === 0, 'the directory to drop it');
  });

  it('a registration made through another node shows up at the next refresh (every 5 s)', async () => {
    const { appName } = await createAppWithJob(store, T0);
    await monitor.start();
    await beat(appName, 'http://10.0.0.3:9999/', T0, 'G4');
    expect(directory.addressesOf(appName)).toEqual([]);
    await clock.advance(5_000);
    await until(() => directory.addressesOf(appName).length === 1, 'the refresh');
    expect(directory.addressesOf(appName)).toEqual([
      { address: 'http://10.0.0.3:9999/', protocol: 'G4', appName },
    ]);
  });

  it("each AUTO app's address list is written from its online executors", async () => {
    const { appName, appId } = await createAppWithJob(store, T0);
    await beat(appName, 'http://10.0.0.2:9999/', T0);
    await beat(appName, 'http://10.0.0.1:9999/', T0);
    await monitor.start();
    const first = await monitor.sweep();
    expect(first.addressListsWritten).toBeGreaterThanOrEqual(1);
    expect((await store.apps.findAppById(appId))?.address_list).toBe(
      'http://10.0.0.1:9999/,http://10.0.0.2:9999/',
    );
    expect((await monitor.sweep()).addressListsWritten).toBe(0);
    clock.stall(91_000);
    await monitor.sweep();
    expect((await store.apps.findAppById(appId))?.address_list).toBeNull();
  });

  it('a MANUAL app dispatches to its typed addresses, with the generation one registered with', async () => {
    const { appName } = await createAppWithJob(store, T0, {
      addressType: 'MANUAL',
      addressList: 'http://10.0.0.9:9999/, http://10.0.0.8:9999/,,http://10.0.0.9:9999/',
    });
    await beat('some-other-app', 'http://10.0.0.8:9999/', T0, 'G4');
    await beat(appName, 'http://10.0.0.7:9999/', T0);
    await monitor.start();
    expect(directory.addressesOf(appName)).toEqual([
      { address: 'http://10.0.0.8:9999/', protocol: 'G4', appName },
      { address: 'http://10.0.0.9:9999/', protocol: 'G2', appName },
    ]);
    expect(directory.registeredOf(appName).map((e) => e.address)).toEqual(['http://10.0.0.7:9999/']);
  });

  it('the clean-up is skipped while another node holds the maintenance lease', async () => {
    const { appName } = await createAppWithJob(store, T0);
    await beat(appName, 'http://10.0.0.1:9999/', T0);
    expect(await store.leases.acquireOrRenewLease(MAINTENANCE_LEASE, 'node-b', 300_000, T0)).not.toBeNull();
    await monitor.start();
    clock.stall(91_000);
    expect(await monitor.sweep()).toEqual({ held: false, deleted: 0, addressListsWritten: 0 });
    expect(await store.registry.listAlive(0, appName)).toHaveLength(1);
  });

  it('a local registration during a refresh survives it', async () => {
    const { appName } = await createAppWithJob(store, T0);
    const refresh = directory.refresh();
    directory.markOnline(appName, 'http://10.0.0.4:9999/', 'G2', T0);
    await refresh;
    expect(directory.addressesOf(appName).map((e) => e.address)).toEqual(['http://10.0.0.4:9999/']);
  });
});

import type { ClusterNodeRepository, LeaseRepository, OwnedShard } from '../store/index.js';
import { shardLeaseName } from '../store/index.js';
import type { DatabaseClock, TimerHandle } from './clock.js';
import type { ResolvedSchedulingOptions } from './options.js';

/** A shard lease this node holds, and until when it may act on it. */
interface HeldShard {
  epoch: number;
  /** The lease's expiry minus the safety margin (database time when on the database clock). */
  actUntil: number;
}

/** A node whose heartbeat is older than this many renewal rounds is dead for the share count. */
const LIVENESS_ROUNDS = 3;

/** A clock offset from the database larger than this is logged, at most once a minute. */
const OFFSET_WARN_MS = 1_000;
const OFFSET_WARN_EVERY_MS = 60_000;

export type ShardLeasesOptions = Pick<
  ResolvedSchedulingOptions,
  | 'nodeId'
  | 'shardCount'
  | 'leaseTtlMs'
  | 'leaseRenewalIntervalMs'
  | 'leaseSafetyMarginMs'
  | 'clock'
  | 'logger'
> & {
  leases: Pick<
    LeaseRepository,
    'ensureLeaseRows' | 'renewLeases' | 'acquireLeases' | 'releaseLeases' | 'listShardLeases' | 'databaseNow'
  >;
  /**
   * The cluster's heartbeats. With it the node heartbeats every round and holds its share of
   * the shards among the live nodes (see `shareOf`); without it, `targetShareCount` or all.
   */
  nodes?: Pick<ClusterNodeRepository, 'heartbeatNode' | 'listLiveNodes' | 'removeNode'>;
  /** This node's address and start, written with its heartbeat. */
  node?: { address: string; startedAt: number };
  /**
   * With it, leases are granted, renewed and compared in the database's clock, and every round
   * measures this clock's offset from the database (`clock` should be this same object, so the
   * planner and the wheel run on corrected time). Without it, leases use `clock.now()`.
   */
  clockSync?: DatabaseClock;
  /** How many shards this node should hold; overrides the share among the live nodes. */
  targetShareCount?: () => number;
};

/**
 * The share of `shardCount` shards that `nodeId` should hold among `liveNodeIds`: ⌊shards / N⌋
 * or ⌈shards / N⌉, the ceiling going to the first `shards mod N` nodes by id, so every node
 * computes the same split. A node that does not see itself (its heartbeat failed) counts itself.
 *
 * @example
 * shareOf(['a', 'b', 'c'], 'a', 64); // 22 (b: 21, c: 21)
 */
export function shareOf(liveNodeIds: readonly string[], nodeId: string, shardCount: number): number {
  const ids = [...new Set([...liveNodeIds, nodeId])].sort();
  const rank = ids.indexOf(nodeId);
  const base = Math.floor(shardCount / ids.length);
  return rank < shardCount % ids.length ? base + 1 : base;
}

/**
 * The shard leases of one node. The job space is split into `shardCount` shards
 * (shard = job id % shardCount), each owned by one live node through a lease row with an expiry
 * and an epoch (the fencing token every claim compares).
 *
 * Every `leaseRenewalIntervalMs` a round: the node heartbeats into `cluster_node` and reads the
 * live nodes (heartbeat within 3 rounds) and the database's clock; renews every shard it holds
 * in one statement; then moves toward its share (`shareOf`): above it, it stops using its
 * surplus shards, waits for the local uses in flight to end (`use`) and releases them in the
 * database so a node below its share takes them at its next round; below it, it takes free or
 * expired shards in one statement. A joining node so has its share within a couple of rounds; a
 * stopping node releases everything and deletes its heartbeat, so the others take its shards
 * at their next round; a dead node's shards are taken when their leases expire.
 *
 * One clock: the database's. Expiries are written and compared inside the statements in the
 * database's clock, and the node acts on a shard only until (expiry − margin) in its own clock
 * corrected by the measured offset, so a node whose clock is off neither takes leases early nor
 * keeps acting on them late. A renewal the database refuses (another node holds the lease, or
 * it expired) drops the shard at once; a round that fails leaves the shards to lapse at their
 * local deadline, before the database would let another node take them.
 *
 * @example
 * const leases = new ShardLeases({ ...resolved, leases: store.leases, nodes: store.nodes });
 * await leases.start();
 * leases.ownedShards(); // [{ index: 0, epoch: 1 }, ...]
 */
export class ShardLeases {
  private readonly options: ShardLeasesOptions;
  private readonly held = new Map<number, HeldShard>();
  /** Work in flight that read the held shards (`use`): a release waits for it. */
  private readonly uses = new Set<Promise<unknown>>();
  private timer: TimerHandle | undefined;
  private round: Promise<void> | undefined;
  private running = false;
  private rowsEnsured = false;
  private offsetWarnedAt = Number.NEGATIVE_INFINITY;
  private target: number;

  constructor(options: ShardLeasesOptions) {
    this.options = options;
    this.target = options.shardCount;
  }

  /**
   * Runs `work`, which reads the held shards and acts on them (a planner tick), as a use of the
   * leases: shards given up while it runs leave `ownedShards()` at once but are released in the
   * database only once it has ended, so nothing acts on a shard another node already took.
   */
  use<T>(work: () => Promise<T>): Promise<T> {
    const running = work();
    // Settles either way (the caller handles the rejection), then leaves the set.
    const tracked: Promise<void> = running.then(
      () => void this.uses.delete(tracked),
      () => void this.uses.delete(tracked),
    );
    this.uses.add(tracked);
    return running;
  }

  /** Takes the first leases (awaited, so the planner can claim right after) and starts renewing. */
  async start(): Promise<void> {
    if (this.running) return;
    this.running = true;
    await this.renewNow();
    this.scheduleRenewal();
  }

  /**
   * Stops renewing, gives every held lease up and deletes this node's heartbeat, so the other
   * nodes take the shards at their next round. Call it once nothing uses the shards any more
   * (the scheduler stops the planner first).
   */
  async stop(): Promise<void> {
    this.running = false;
    if (this.timer !== undefined) this.options.clock.clearTimer(this.timer);
    this.timer = undefined;
    await this.round;
    const held = [...this.held.keys()];
    this.held.clear();
    const { leases, nodes, nodeId, logger } = this.options;
    try {
      await leases.releaseLeases(nodeId, held.map(shardLeaseName));
    } catch (err) {
      logger.warn({ err, shards: held }, 'could not release the shard leases; they will expire instead');
    }
    try {
      await nodes?.removeNode(nodeId);
    } catch (err) {
      logger.warn({ err }, 'could not delete this node’s heartbeat; it will age out instead');
    }
  }

  /**
   * Ends this node's renewals on the spot without releasing anything, as if its process had
   * been killed: its leases expire in the database. For tests and chaos runs.
   */
  async abandon(): Promise<void> {
    this.running = false;
    if (this.timer !== undefined) this.options.clock.clearTimer(this.timer);
    this.timer = undefined;
    await this.round;
    this.held.clear();
  }

  /** The shards this node may claim and dispatch for right now, with their lease epochs, by index. */
  ownedShards(): OwnedShard[] {
    const now = this.options.clock.now();
    const owned: OwnedShard[] = [];
    for (const [index, held] of this.held) if (held.actUntil > now) owned.push({ index, epoch: held.epoch });
    return owned.sort((a, b) => a.index - b.index);
  }

  /** The epoch this node holds shard `index` at, or undefined when it may not act on it now. */
  epochOf(index: number): number | undefined {
    const held = this.held.get(index);
    return held !== undefined && held.actUntil > this.options.clock.now() ? held.epoch : undefined;
  }

  /** The shard of a job. */
  shardOf(jobId: number): number {
    return jobId % this.options.shardCount;
  }

  /** A node whose heartbeat is older than this is dead (for the share count, and pull relays). */
  get nodeLiveWindowMs(): number {
    return LIVENESS_ROUNDS * this.options.leaseRenewalIntervalMs;
  }

  /** How many shards this node aims to hold, as of the last round. */
  targetShare(): number {
    return this.target;
  }

  /** Resolves when no renewal round is in flight. */
  async idle(): Promise<void> {
    await this.round;
  }

  /** Runs one renewal round now (rounds never overlap: a call during a round waits for it). */
  renewNow(): Promise<void> {
    this.round ??= this.renewAll()
      .catch((err: unknown) => {
        this.options.logger.error(
          { err, held: this.held.size },
          'shard lease renewal failed; held shards lapse at their deadline',
        );
      })
      .finally(() => {
        this.round = undefined;
      });
    return this.round;
  }

  private scheduleRenewal(): void {
    if (!this.running) return;
    this.timer = this.options.clock.setTimer(() => {
      this.timer = undefined;
      void this.renewNow().finally(() => this.scheduleRenewal());
    }, this.options.leaseRenewalIntervalMs);
  }

  /** `nowMs` for the store: undefined (the database's clock) or this node's clock. */
  private storeNow(): number | undefined {
    return this.options.clockSync === undefined ? this.options.clock.now() : undefined;
  }

  /** One round: heartbeat and share, renewal of what is held, then release or take toward the share. */
  private async renewAll(): Promise<void> {
    const { shardCount, leases } = this.options;
    if (!this.rowsEnsured) {
      await leases.ensureLeaseRows(Array.from({ length: shardCount }, (_, index) => shardLeaseName(index)));
      this.rowsEnsured = true;
    }
    this.target = Math.min(shardCount, Math.max(0, await this.shareNow()));
    const lost = await this.renewHeld();
    if (this.held.size > this.target) await this.releaseSurplus(this.held.size - this.target);
    else if (this.held.size < this.target) await this.takeFree(this.target - this.held.size);
    for (const index of lost) {
      if (this.held.has(index)) {
        this.options.logger.warn(
          { shard: index, epoch: this.held.get(index)?.epoch },
          'shard lease had lapsed and was granted afresh',
        );
      } else {
        this.options.logger.warn({ shard: index }, 'lost a shard lease (expired or taken by another node)');
      }
    }
  }

  /** Heartbeats, reads the live nodes and the database's clock; returns this node's share. */
  private async shareNow(): Promise<number> {
    const { nodes, node, nodeId, shardCount, leaseRenewalIntervalMs, clockSync } = this.options;
    let share = shardCount;
    if (nodes !== undefined) {
      await nodes.heartbeatNode(
        { nodeId, address: node?.address ?? '', startedAt: node?.startedAt ?? 0 },
        this.storeNow(),
      );
      const localBefore = clockSync?.localNow() ?? 0;
      const live = await nodes.listLiveNodes(LIVENESS_ROUNDS * leaseRenewalIntervalMs, this.storeNow());
      if (clockSync !== undefined) {
        clockSync.sample({ localBefore, databaseNow: live.nowMs, localAfter: clockSync.localNow() });
      }
      share = shareOf(live.nodeIds, nodeId, shardCount);
    } else if (clockSync !== undefined) {
      await clockSync.sync(() => this.options.leases.databaseNow());
    }
    this.warnOnOffset();
    return this.options.targetShareCount?.() ?? share;
  }

  private warnOnOffset(): void {
    const { clockSync, logger } = this.options;
    if (clockSync === undefined || Math.abs(clockSync.offsetMs) <= OFFSET_WARN_MS) return;
    const now = clockSync.localNow();
    if (now - this.offsetWarnedAt < OFFSET_WARN_EVERY_MS) return;
    this.offsetWarnedAt = now;
    logger.warn(
      { offsetMs: clockSync.offsetMs, roundTripMs: clockSync.roundTripMs },
      'this node’s clock is off from the database’s; scheduling on the database’s time',
    );
  }

  /**
   * Renews every held shard in one statement; a shard not renewed is dropped at once. Returns
   * the dropped ones.
   */
  private async renewHeld(): Promise<number[]> {
    if (this.held.size === 0) return [];
    const { leases, nodeId, leaseTtlMs, logger } = this.options;
    const asked = [...this.held.keys()];
    const renewed = await leases.renewLeases(nodeId, asked.map(shardLeaseName), leaseTtlMs, this.storeNow());
    const byName = new Map(renewed.map((lease) => [lease.name, lease]));
    const lost: number[] = [];
    for (const index of asked) {
      const lease = byName.get(shardLeaseName(index));
      const previous = this.held.get(index);
      if (previous === undefined) continue;
      if (lease === undefined) {
        this.held.delete(index);
        lost.push(index);
        continue;
      }
      if (lease.epoch !== previous.epoch) {
        logger.warn({ shard: index, epoch: lease.epoch }, 'shard lease had lapsed and was granted afresh');
      }
      this.hold(index, lease.epoch, lease.expiresAt);
    }
    return lost;
  }

  /**
   * Stops using `count` held shards (the highest indexes), waits until nothing local uses them,
   * then releases them so another node takes them at once.
   */
  private async releaseSurplus(count: number): Promise<void> {
    const { leases, nodeId, logger } = this.options;
    const surplus = [...this.held.keys()].sort((a, b) => b - a).slice(0, count);
    for (const index of surplus) this.held.delete(index);
    // The uses that may have read them; a use started from now on no longer sees them.
    await Promise.allSettled([...this.uses]);
    await leases.releaseLeases(nodeId, surplus.map(shardLeaseName));
    logger.info(
      { shards: surplus.sort((a, b) => a - b), target: this.target },
      'released shards above this node’s share',
    );
  }

  /**
   * Takes up to `count` free or expired shards in one statement, and the ones the database
   * still has under this node's name (a restart under the same name takes its shards back at once).
   */
  private async takeFree(count: number): Promise<void> {
    const { leases, nodeId, leaseTtlMs, shardCount } = this.options;
    const snapshot = await leases.listShardLeases(this.storeNow());
    const indexOf = (name: string) => Number(name.slice('shard:'.length));
    // Its own first (a restart under the same name): those are no one else's to take.
    const free = snapshot.leases
      .filter((lease) => lease.expires_at <= snapshot.nowMs || lease.owner_node === nodeId)
      .map((lease) => ({ index: indexOf(lease.name), own: lease.owner_node === nodeId ? 0 : 1 }))
      .filter(({ index }) => Number.isInteger(index) && index < shardCount && !this.held.has(index))
      .sort((a, b) => a.own - b.own || a.index - b.index)
      .slice(0, count)
      .map(({ index }) => index);
    if (free.length === 0) return;
    const granted = await leases.acquireLeases(nodeId, free.map(shardLeaseName), leaseTtlMs, this.storeNow());
    for (const lease of granted) this.hold(indexOf(lease.name), lease.epoch, lease.expiresAt);
  }

  private hold(index: number, epoch: number, expiresAt: number): void {
    this.held.set(index, { epoch, actUntil: expiresAt - this.options.leaseSafetyMarginMs });
  }
}

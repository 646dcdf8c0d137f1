import type { LeaseRepository, OwnedShard } from '../store/index.js';
import { shardLeaseName } from '../store/index.js';
import type { TimerHandle } from './clock.js';
import type { ResolvedSchedulingOptions } from './options.js';

/** A shard lease this node holds, and until when it may act on it. */
interface HeldShard {
  epoch: number;
  /** Local deadline: the lease's expiry minus the safety margin. Past it, the shard is not used. */
  actUntil: number;
}

/** Held shards renewed at once in a round (see `renewAll`). */
const RENEWALS_AT_ONCE = 8;

export type ShardLeasesOptions = Pick<
  ResolvedSchedulingOptions,
  'nodeId' | 'shardCount' | 'leaseTtlMs' | 'leaseSafetyMarginMs' | 'clock' | 'logger'
> & {
  leases: Pick<LeaseRepository, 'acquireOrRenewLease' | 'releaseLease'>;
  /**
   * How many shards this node should hold. Default: all of them, which is right for one node
   * and safe for several (the first to grab a shard keeps it). Fair sharing between nodes
   * (about shardCount / live nodes each) plugs in here.
   */
  targetShareCount?: () => number;
};

/**
 * The shard leases of one node. The job space is split into `shardCount` shards
 * (shard = job id % shardCount), each owned by one live node through a lease row with an expiry
 * and an epoch (the fencing token every claim compares). Every `leaseTtlMs / 3` the node renews
 * what it holds and takes free or expired leases until it holds its target share; even a lone
 * node claims through leases, so more nodes change nothing in the planner.
 *
 * Ownership ends locally before it can end in the database: a shard is used only until
 * `expiry − leaseSafetyMarginMs` as of the last successful renewal, so a node whose renewals
 * fail, or whose event loop stalls, has stopped claiming and dispatching for a shard before
 * another node may take it over. A renewal the database refuses (another node holds the lease)
 * drops the shard at once.
 *
 * @example
 * const leases = new ShardLeases({ ...resolved, leases: store.leases });
 * await leases.start();
 * leases.ownedShards(); // [{ index: 0, epoch: 1 }, ...]
 */
export class ShardLeases {
  private readonly options: ShardLeasesOptions;
  private readonly held = new Map<number, HeldShard>();
  private timer: TimerHandle | undefined;
  private round: Promise<void> | undefined;
  private running = false;

  constructor(options: ShardLeasesOptions) {
    this.options = options;
  }

  /** Takes the first leases (awaited, so the planner can claim right after) and starts renewing. */
  async start(): Promise<void> {
    if (this.running) return;
    this.running = true;
    await this.renewNow();
    this.scheduleRenewal();
  }

  /** Stops renewing and gives every held lease up, so another node need not wait for the expiry. */
  async stop(): Promise<void> {
    this.running = false;
    if (this.timer !== undefined) this.options.clock.clearTimer(this.timer);
    this.timer = undefined;
    await this.round;
    const held = [...this.held];
    this.held.clear();
    for (const [index, { epoch }] of held) {
      try {
        await this.options.leases.releaseLease(shardLeaseName(index), this.options.nodeId, epoch);
      } catch (err) {
        this.options.logger.warn(
          { err, shard: index },
          'could not release a shard lease; it will expire instead',
        );
      }
    }
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

  /** Resolves when no renewal round is in flight. */
  async idle(): Promise<void> {
    await this.round;
  }

  /** Runs one renewal round now (rounds never overlap: a call during a round waits for it). */
  renewNow(): Promise<void> {
    this.round ??= this.renewAll().finally(() => {
      this.round = undefined;
    });
    return this.round;
  }

  private scheduleRenewal(): void {
    if (!this.running) return;
    this.timer = this.options.clock.setTimer(
      () => {
        this.timer = undefined;
        void this.renewNow().finally(() => this.scheduleRenewal());
      },
      Math.floor(this.options.leaseTtlMs / 3),
    );
  }

  /**
   * Renews what is held first, RENEWALS_AT_ONCE at a time, then tries the others one by one while
   * below the target share. The round ends at the first error: when the database cannot be
   * asked, the other shards cannot either. The held shards go several at a time because on a
   * busy pool each renewal waits its turn behind the hot path's queries: one by one, 64 shards'
   * renewals could take longer than the margin a lease leaves, and the node would lose shards
   * it holds to the length of its own round.
   */
  private async renewAll(): Promise<void> {
    const { shardCount } = this.options;
    const target = Math.min(shardCount, this.options.targetShareCount?.() ?? shardCount);
    const held = [...this.held.keys()];
    const others = Array.from({ length: shardCount }, (_, index) => index).filter(
      (index) => !this.held.has(index),
    );
    for (let i = 0; i < held.length; i += RENEWALS_AT_ONCE) {
      const chunk = held.slice(i, i + RENEWALS_AT_ONCE);
      const settled = await Promise.allSettled(chunk.map((index) => this.renewOne(index)));
      const failed = settled.findIndex((result) => result.status === 'rejected');
      if (failed !== -1) {
        this.renewalFailed(chunk[failed] as number, (settled[failed] as PromiseRejectedResult).reason);
        return;
      }
    }
    for (const index of others) {
      if (this.held.size >= target) break;
      try {
        await this.renewOne(index);
      } catch (err) {
        this.renewalFailed(index, err);
        return;
      }
    }
  }

  private renewalFailed(shard: number, err: unknown): void {
    this.options.logger.error(
      { err, shard, held: this.held.size },
      'shard lease renewal failed; held shards lapse at their deadline',
    );
  }

  /** Takes or renews one shard's lease. */
  private async renewOne(index: number): Promise<void> {
    const { clock, leases, nodeId, leaseTtlMs, leaseSafetyMarginMs, logger } = this.options;
    // The expiry is counted from before the call, so a slow answer only shortens the local term.
    const askedAt = clock.now();
    const granted = await leases.acquireOrRenewLease(shardLeaseName(index), nodeId, leaseTtlMs, askedAt);
    if (granted === null) {
      if (this.held.delete(index)) logger.warn({ shard: index }, 'lost a shard lease to another node');
      return;
    }
    const previous = this.held.get(index);
    if (previous !== undefined && previous.epoch !== granted.epoch) {
      logger.warn({ shard: index, epoch: granted.epoch }, 'shard lease had lapsed and was granted afresh');
    }
    this.held.set(index, { epoch: granted.epoch, actUntil: granted.expiresAt - leaseSafetyMarginMs });
  }
}

/**
 * The last step before a `run` goes out: the dispatcher asks the fence, and sends only what it
 * admits (store/hot/send-fence.ts says what the statement checks). Asks that come in the same
 * turn of the event loop, or while a fence statement is in flight, go to the database together,
 * so fencing costs one statement per batch of sends, not one per send.
 *
 * A fire of the planner is fenced under its shard's lease as this node holds it now; when the
 * node no longer holds the shard (locally: its lease deadline passed) the send is refused
 * without asking the database.
 */
import type { SendFenceAnswer, SendFenceRequest } from '../store/hot/send-fence.js';
import { shardLeaseName } from '../store/leases.js';

/** A send the dispatcher is about to make. */
export interface SendToFence {
  fireId: number;
  jobId: number;
  address: string;
  /** True for a fire of the planner: only the holder of its shard may send it. */
  leased: boolean;
  /** A fire sent as its claim read it: the job and app `updated_at` it must still find (store/hot/send-fence.ts). */
  readAt?: SendFenceRequest['readAt'];
}

export type FenceVerdict =
  | { admitted: true }
  | { admitted: false; sentTo: string }
  | { admitted: false; reason: 'not-pending' | 'not-owner' | 'stale' };

/**
 * Fence statements at once. The sends of one wait for its answer, which on a busy database
 * includes the wait for a pooled connection: with several in flight the next batch does not queue
 * behind that wait. Each locks its own records, in id order.
 */
export const FENCES_IN_FLIGHT = 4;
/**
 * Fence statements at once while the claim falls behind its fires' times (`claimBehind`): on a
 * database with no CPU to spare, four statements of sends at a time left the claim (one
 * transaction at a time) a fifth of it, and it fell further behind with every batch; sends are
 * made late either way then, and a fire not claimed cannot be sent at all.
 */
export const FENCES_IN_FLIGHT_CLAIM_BEHIND = 1;

export interface SendFenceOptions {
  fenceSends(nowMs: number, sends: readonly SendFenceRequest[]): Promise<SendFenceAnswer[]>;
  /** The shard of a job and the epoch this node holds it at now (undefined: not held). */
  leases: { shardOf(jobId: number): number; epochOf(shard: number): number | undefined };
  now(): number;
  /** Sends fenced per statement at most. */
  batchSize: number;
  /** Whether the claim is behind its fires' times now (Planner.claimBehind): fewer fences at once then. */
  claimBehind?: () => boolean;
}

type Settle = (value: FenceVerdict | FenceVerdict[]) => void;

/** The asks of one `admit` or `admitMany` call: their verdicts, and what settles its one promise. */
interface AskGroup {
  verdicts: FenceVerdict[];
  /** Verdicts still to come. */
  remaining: number;
  /** An `admit`: settled with its one verdict. */
  one: boolean;
  settle: Settle;
  fail(err: unknown): void;
  failed: boolean;
}

interface Waiting {
  request: SendFenceRequest;
  group: AskGroup;
  /** Where its verdict goes in the group's. */
  index: number;
}

export class SendFence {
  private readonly options: SendFenceOptions;
  private queue: Waiting[] = [];
  /** Fence statements running now. */
  private inFlight = 0;
  /** A batch is being gathered (until the end of this turn of the event loop). */
  private gathering = false;

  constructor(options: SendFenceOptions) {
    this.options = options;
  }

  /** Whether `send` may go out now. Rejects when the database cannot be asked (the fire is then not sent). */
  admit(send: SendToFence): Promise<FenceVerdict> {
    return new Promise((settle, fail) => {
      this.ask([send], {
        verdicts: [],
        remaining: 1,
        one: true,
        settle: settle as Settle,
        fail,
        failed: false,
      });
    });
  }

  /**
   * Whether each of `sends` may go out now, in their order: one promise for them all (a batch of
   * sends routed together). Rejects when the database cannot be asked for any of them (none is
   * then sent).
   */
  admitMany(sends: readonly SendToFence[]): Promise<FenceVerdict[]> {
    return new Promise((settle, fail) => {
      const verdicts: FenceVerdict[] = new Array(sends.length);
      this.ask(sends, {
        verdicts,
        remaining: sends.length,
        one: false,
        settle: settle as Settle,
        fail,
        failed: false,
      });
    });
  }

  /** Queues the asks of `group` (a send whose shard this node does not hold is refused here). */
  private ask(sends: readonly SendToFence[], group: AskGroup): void {
    for (let index = 0; index < sends.length; index++) {
      const send = sends[index]!;
      let lease: SendFenceRequest['lease'] = null;
      if (send.leased) {
        const shard = this.options.leases.shardOf(send.jobId);
        const epoch = this.options.leases.epochOf(shard);
        if (epoch === undefined) {
          group.verdicts[index] = NOT_OWNER;
          group.remaining--;
          continue;
        }
        lease = { name: shardLeaseName(shard), epoch };
      }
      const request = { fireId: send.fireId, address: send.address, lease, readAt: send.readAt };
      this.queue.push({ request, group, index });
    }
    if (group.remaining === 0) settleGroup(group);
    else this.startFlush();
  }

  /** Fence statements allowed at once now. */
  private get maxInFlight(): number {
    return this.options.claimBehind?.() === true ? FENCES_IN_FLIGHT_CLAIM_BEHIND : FENCES_IN_FLIGHT;
  }

  /** Starts fence statements while asks wait, up to `maxInFlight` at once. */
  private startFlush(): void {
    if (this.gathering || this.inFlight >= this.maxInFlight || this.queue.length === 0) return;
    this.gathering = true;
    // Let the sends routed in the same turn of the event loop join this statement.
    setImmediate(() => {
      this.gathering = false;
      // The asks of a call that was refused already (another statement of its batch failed) are
      // not fenced: their sends will not be made, and a fenced record would wait with an address.
      const batch = this.queue.splice(0, this.options.batchSize).filter((w) => !w.group.failed);
      if (batch.length > 0) {
        this.inFlight++;
        void this.fence(batch).finally(() => {
          this.inFlight--;
          this.startFlush();
        });
      }
      this.startFlush();
    });
  }

  private async fence(batch: readonly Waiting[]): Promise<void> {
    try {
      const answers = await this.options.fenceSends(
        this.options.now(),
        batch.map((w) => w.request),
      );
      for (let i = 0; i < batch.length; i++) {
        const { group, index } = batch[i]!;
        group.verdicts[index] = verdictOf(answers[i]!);
        if (--group.remaining === 0 && !group.failed) settleGroup(group);
      }
    } catch (err) {
      for (const { group } of batch) {
        if (group.failed) continue;
        group.failed = true;
        group.fail(err);
      }
    }
  }
}

const ADMITTED: FenceVerdict = { admitted: true };
const NOT_OWNER: FenceVerdict = { admitted: false, reason: 'not-owner' };

function settleGroup(group: AskGroup): void {
  group.settle(group.one ? group.verdicts[0]! : group.verdicts);
}

function verdictOf(answer: SendFenceAnswer): FenceVerdict {
  if (answer.admitted) return ADMITTED;
  if ('sentTo' in answer) return { admitted: false, sentTo: answer.sentTo };
  return { admitted: false, reason: answer.reason };
}

/**
 * The fire records this process is dispatching: the planner's due fires from the moment it hands
 * them to the pipeline, and trigger-once records (manual and API triggers, child jobs, workflow
 * nodes) from the moment they exist. A recovery in this process — a shard lease that lapsed and
 * came back, the orphan sweep — leaves them to that dispatch, so no record is sent twice from
 * here. The pipeline forgets the ones it left `pending` (the send fence kept them back, their
 * marks could not be written), so the next recovery of their shard takes them up again.
 *
 * One registry, made before the planner and the pipeline and handed to both (and to the trigger
 * paths): neither reaches into the other for it.
 */
import type { Clock } from './clock.js';

/**
 * How long a record is remembered. A dispatch that has not marked its record by then is treated
 * as lost, and recovery may take the record up.
 */
export const IN_FLIGHT_MEMORY_MS = 60_000;

export class InFlightFires {
  private readonly clock: Pick<Clock, 'now'>;
  /** When each record was added; in insertion order, so the oldest come first. */
  private readonly since = new Map<number, number>();

  constructor(clock: Pick<Clock, 'now'>) {
    this.clock = clock;
  }

  /** Records being dispatched by this process now. */
  add(fireIds: readonly number[]): void {
    const now = this.clock.now();
    for (const id of fireIds) this.since.set(id, now);
  }

  /** Records this process left `pending` without sending: recovery may take them up again. */
  delete(fireIds: readonly number[]): void {
    for (const id of fireIds) this.since.delete(id);
  }

  has(fireId: number): boolean {
    return this.since.has(fireId);
  }

  /** Forgets the records added more than IN_FLIGHT_MEMORY_MS ago. */
  expire(): void {
    const before = this.clock.now() - IN_FLIGHT_MEMORY_MS;
    for (const [fireId, at] of this.since) {
      if (at >= before) break;
      this.since.delete(fireId);
    }
  }
}

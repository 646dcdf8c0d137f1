/**
 * The dispatch marks a fire's outcomes leave on its records (written by the mark batcher).
 */
import type { DueFire } from '../store/hot/due-load.js';
import type { DispatchMark } from '../store/index.js';
import type { DispatchOutcome } from './dispatcher.js';

/**
 * The dispatch marks of one fire's outcomes. A broadcast's shards are marked on their own
 * records, and the fire's own record takes a summary: `dispatched` while any shard was accepted
 * (its result comes once every shard has settled), else `dispatch_failed`.
 */
export function marksOf(fire: DueFire, outcomes: readonly DispatchOutcome[]): DispatchMark[] {
  // One run of the fire's own record (nearly every fire): its mark, unless it was not sent.
  const only = outcomes.length === 1 ? outcomes[0]! : undefined;
  if (only !== undefined && only.parentFireId === null)
    return only.notSent === undefined ? [markOf(only)] : [];
  // A run the send fence kept back leaves its record as it is; a broadcast with a shard kept
  // back leaves the fire's own record pending, to be sent again (its sent shards are re-sent to
  // their executors, which refuse them as repeats).
  if (
    outcomes.some((o) => o.notSent !== undefined && o.notSent !== 'not-pending' && o.parentFireId === fire.id)
  ) {
    return outcomes.filter((o) => o.notSent === undefined).map(markOf);
  }
  const marks: DispatchMark[] = outcomes.filter((o) => o.notSent === undefined).map(markOf);
  const shards = outcomes.filter((outcome) => outcome.parentFireId === fire.id);
  if (shards.length === 0) return marks;
  // A shard that was no longer pending had been sent (or finished) by an earlier dispatch.
  const accepted = shards.filter(
    (shard) => shard.triggerCode === 200 || shard.notSent === 'not-pending',
  ).length;
  const lines = shards.map(
    (shard) =>
      `shard ${shard.shardIndex}/${shard.shardTotal} → ${shard.address}: fire ${shard.fireId}, code ${shard.triggerCode}`,
  );
  marks.push({
    fireId: fire.id,
    triggerAt: shards[0]!.triggerAt,
    executorAddress: null,
    triggerCode: accepted > 0 ? 200 : 500,
    triggerMsg: [
      `trigger ${fire.trigger_type}`,
      `broadcast: ${accepted} of ${shards.length} shards accepted`,
      ...lines,
    ].join('\n'),
  });
  return marks;
}

function markOf(outcome: DispatchOutcome): DispatchMark {
  return {
    fireId: outcome.fireId,
    triggerAt: outcome.triggerAt,
    executorAddress: outcome.address,
    triggerCode: outcome.triggerCode,
    triggerMsg: outcome.triggerMsg,
    executorInstance: outcome.executorInstance ?? null,
  };
}

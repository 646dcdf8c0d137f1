/**
 * Sends first. When many due fires wait to be sent at once (the top of a minute, 10,000 jobs on
 * `0 * * * * ?`), every millisecond of the server's thread spent writing dispatch marks or run
 * results is a millisecond later for the fires still waiting; those writes lose nothing by
 * waiting (a record stays `pending` until marked and an executor's callback waits for its
 * answer), so they give way: they start once the burst is sent, or once `cap` of them are queued
 * (memory stays bounded), or once the oldest of them has waited `maxHoldMs`. A burst is the
 * pipeline's to say (`FirePipeline.giveWay`): 500 or more due fires waiting, for one second at
 * most — a node that stays behind is in no burst, or its results would pile up until the
 * executors' callbacks time out (at 20,000 fires a second they fell 200,000 behind).
 */
import { performance } from 'node:perf_hooks';

/** How often a write that gives way looks again. */
const LOOK_AGAIN_MS = 2;

export interface GiveWay {
  /** Whether sends are waiting in a number that writes should give way to. */
  sendsWaiting(): boolean;
  /** Queued writes past which they go ahead anyway. */
  cap: number;
  /** Longest a write waits. */
  maxHoldMs: number;
}

/**
 * Resolves when writes may go: no burst waiting, `queued()` at the cap, or the oldest queued
 * write (queued at `oldestAt()`, `performance.now()` time) has waited `maxHoldMs`.
 */
export async function giveWayToSends(
  giveWay: GiveWay | undefined,
  queued: () => number,
  oldestAt: () => number,
): Promise<void> {
  if (giveWay === undefined) return;
  while (
    giveWay.sendsWaiting() &&
    queued() < giveWay.cap &&
    performance.now() - oldestAt() < giveWay.maxHoldMs
  ) {
    await new Promise<void>((resolve) => setTimeout(resolve, LOOK_AGAIN_MS));
  }
}

/**
 * `--stages`: where each fire of the window spent its time, second by second, from its record —
 * to show which stage falls behind when lateness grows. A fire is claimed (its record written,
 * `created_at`), sent to an executor (`trigger_at`) and its result stored (`handle_at`).
 */
import type { Store } from '@tickwheel/server/internal';
import type { Window } from './messages.js';

/** The stages of the root fires scheduled in one second of the window, ms (NaN, in JSON null, when none has the fields). */
export interface SecondStages {
  /** Record written − scheduled: negative = claimed ahead, as the look-ahead intends; positive = the claim was late. */
  claimP50: number;
  claimMax: number;
  /** Sent to the executor − scheduled. */
  sendP50: number;
  sendP99: number;
  sendMax: number;
  /** Result stored − sent: the executor's run and the result's way back. */
  resultP50: number;
  resultP99: number;
}

/**
 * The window's root records (`parent_fire_id` null), one scheduled second per query: at most a
 * second's fires in memory at a time, whatever the window's length, each read through the
 * `scheduled_at` index.
 */
export async function readStages(store: Store, window: Window): Promise<SecondStages[]> {
  const stages: SecondStages[] = [];
  for (let from = window.start; from < window.end; from += 1000) {
    const rows = await store.db
      .selectFrom('fire')
      .select(['scheduled_at', 'created_at', 'trigger_at', 'handle_at'])
      .where('parent_fire_id', 'is', null)
      .where('scheduled_at', '>=', from)
      .where('scheduled_at', '<', Math.min(from + 1000, window.end))
      .execute();
    const claim = new Float64Array(rows.length);
    const send = new Float64Array(rows.length);
    const result = new Float64Array(rows.length);
    let sent = 0;
    let returned = 0;
    rows.forEach((row, index) => {
      claim[index] = row.created_at - row.scheduled_at;
      if (row.trigger_at === null) return;
      send[sent++] = row.trigger_at - row.scheduled_at;
      if (row.handle_at !== null) result[returned++] = row.handle_at - row.trigger_at;
    });
    const claims = claim.sort();
    const sends = send.subarray(0, sent).sort();
    const results = result.subarray(0, returned).sort();
    stages.push({
      claimP50: percentile(claims, 0.5),
      claimMax: claims.at(-1) ?? Number.NaN,
      sendP50: percentile(sends, 0.5),
      sendP99: percentile(sends, 0.99),
      sendMax: sends.at(-1) ?? Number.NaN,
      resultP50: percentile(results, 0.5),
      resultP99: percentile(results, 0.99),
    });
  }
  return stages;
}

/** The smallest value at or below which `fraction` of the sorted values lie (as `Histogram`); NaN when none. */
function percentile(sorted: Float64Array, fraction: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.max(1, Math.ceil(fraction * sorted.length)) - 1] ?? Number.NaN;
}

/**
 * The `updated_at` an edit of a job or app writes: the edit's time, or one past the value there
 * when that is not earlier (two edits in one millisecond, or a node whose clock runs behind the
 * last editor's). It only ever grows, so a fire sent as its claim read its job and app can tell
 * by `updated_at` alone that neither was edited since (store/hot/send-fence.ts).
 */
import { type RawBuilder, sql } from 'kysely';

export function editedAt(nowMs: number): RawBuilder<number> {
  return sql<number>`CASE WHEN updated_at >= ${nowMs} THEN updated_at + 1 ELSE ${nowMs} END`;
}

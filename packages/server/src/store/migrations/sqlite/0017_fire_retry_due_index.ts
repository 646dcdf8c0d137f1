/**
 * 0017 — a partial index of the pending RETRY records, for SQLite (why: the PostgreSQL migration
 * of the same number). Here the (status, scheduled_at) index holds no stale entries, but its
 * `pending` range holds every record in flight whose dispatch mark is not written yet (thousands
 * at 10,000 fires a second); this index holds the pending retries alone. Its key starts with the
 * two columns its condition fixes, so SQLite's planner, which weighs a key's equalities, prefers it
 * to (status, scheduled_at); its entries end with the row id, so they come in (scheduled_at, id)
 * order.
 */
export default `
CREATE INDEX IF NOT EXISTS fire_retry_due_idx ON fire (status, trigger_type, scheduled_at) WHERE status = 'pending' AND trigger_type = 'RETRY';
`;

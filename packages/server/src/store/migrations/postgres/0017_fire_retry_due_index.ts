/**
 * 0017 — a partial index of the pending RETRY records, for the retry monitor's twice-a-second
 * look for due retries (store/retries.ts `selectDueRetries`).
 *
 * That look went through (status, scheduled_at), whose `pending` range PostgreSQL fills with an
 * entry for every record that was ever pending: a record's status change writes a new entry and
 * leaves the old one until a vacuum, so each look read past all the records dispatched since the
 * last vacuum (about 100,000 entries at 5,000 fires a second). This index holds only pending
 * RETRY records; a record's entry goes in when it is inserted as one, and the statuses it moves
 * through afterwards add none. Building it reads the whole table once.
 */
export default `
CREATE INDEX IF NOT EXISTS fire_retry_due_idx ON fire (scheduled_at, id) WHERE status = 'pending' AND trigger_type = 'RETRY';
`;

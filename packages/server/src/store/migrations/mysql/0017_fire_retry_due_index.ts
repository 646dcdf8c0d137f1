/**
 * 0017 — the pending RETRY records' partial index of the PostgreSQL and SQLite migrations of the
 * same number. MySQL and MariaDB have no partial index, and InnoDB purges the entries a record's
 * status change leaves in (status, scheduled_at) soon after, so nothing changes here: the version
 * is recorded, and the due retries are found through (status, scheduled_at) as before.
 */
export default `
DO 0;
`;

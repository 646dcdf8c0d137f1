/**
 * 0015 — the fire record loses its (status, executor_address) index, for SQLite (why: the
 * PostgreSQL migration of the same number).
 */
export default `
DROP INDEX IF EXISTS fire_status_address_idx;
`;

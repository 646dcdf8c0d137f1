/**
 * 0015 — the fire record loses its (status, executor_address) index, for MySQL and MariaDB (why:
 * the PostgreSQL migration of the same number).
 *
 * MySQL has no DROP INDEX IF EXISTS: the statement is chosen from information_schema — the DROP
 * when the index is there, `DO 0` when a first run that died half-way dropped it already.
 */
export default `
SET @tw_drop_index = (SELECT IF(COUNT(*) = 0, 'DO 0', 'ALTER TABLE fire DROP INDEX fire_status_address_idx') FROM information_schema.statistics WHERE table_schema = DATABASE() AND table_name = 'fire' AND index_name = 'fire_status_address_idx');
PREPARE tw_drop_index FROM @tw_drop_index;
EXECUTE tw_drop_index;
DEALLOCATE PREPARE tw_drop_index;
`;

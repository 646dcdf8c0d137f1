/**
 * 0010 — the send fence writes the executor a run is about to go to, for MySQL/MariaDB.
 *
 * `sent_to`: NULL until the send fence admits a run of the record; then the executor it is sent
 * to, kept so a re-send after a crash or a takeover goes to that same executor. In no index, so
 * InnoDB updates it in place.
 *
 * MySQL commits DDL implicitly, so the column is added through a statement chosen from
 * information_schema (the ALTER when it is missing, `DO 0` when a first run that died half-way
 * added it already).
 */
export default `
SET @tw_add_column = (SELECT IF(COUNT(*) = 0, 'ALTER TABLE fire ADD COLUMN sent_to VARCHAR(255) NULL', 'DO 0') FROM information_schema.columns WHERE table_schema = DATABASE() AND table_name = 'fire' AND column_name = 'sent_to');
PREPARE tw_add_column FROM @tw_add_column;
EXECUTE tw_add_column;
DEALLOCATE PREPARE tw_add_column;
`;

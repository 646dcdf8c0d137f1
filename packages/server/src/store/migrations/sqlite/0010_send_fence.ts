/**
 * 0010 — the send fence writes the executor a run is about to go to, for SQLite.
 *
 * `sent_to`: NULL until the send fence admits a run of the record; then the executor it is sent
 * to, kept so a re-send after a crash goes to that same executor. In no index.
 */
export default `
ALTER TABLE fire ADD COLUMN sent_to TEXT NULL;
`;

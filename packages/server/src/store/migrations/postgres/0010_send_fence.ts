/**
 * 0010 — the send fence writes the executor a run is about to go to, for PostgreSQL.
 *
 * `sent_to`: NULL until the send fence admits a run of the record; then the executor it is sent
 * to, kept so a re-send after a crash or a takeover goes to that same executor. It is in no
 * index, and the table leaves a fifth of each new page free (`fillfactor`), so the fence's update
 * stays on the record's page without touching an index (a heap-only update): the fence costs the
 * database a small write per fire, not a new entry in every index of the table. The fillfactor
 * applies to pages written from now on; nothing is rewritten.
 */
export default `
ALTER TABLE fire ADD COLUMN IF NOT EXISTS sent_to VARCHAR(255) NULL;
ALTER TABLE fire SET (fillfactor = 80);
`;

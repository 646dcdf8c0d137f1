/**
 * 0015 — the fire record loses its (status, executor_address) index.
 *
 * Every query that named an executor address also asks for `status = 'dispatched'` (the runs of
 * an instance that is gone, of an executor that restarted or stopped answering), and the
 * (status, scheduled_at) index serves that: its 'dispatched' range holds only the runs in flight.
 * The address index served nothing the other did not, and cost every fire three index writes —
 * an entry at the claim, moved at the dispatch mark and again at the result (bench/fire's
 * `index-cost`: about a sixth of a fire's statements on SQLite).
 */
export default `
DROP INDEX IF EXISTS fire_status_address_idx;
`;

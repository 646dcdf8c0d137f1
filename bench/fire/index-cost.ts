/**
 * What the fire record's indexes cost on SQLite: the statements of a fire's life (the claim's
 * insert and the job's advance, the send fence, the dispatch mark, the result), run on the store's
 * real schema in batches of 100 as the hot thread runs them, with the table's indexes as the
 * migrations leave them and with each index named by `--drop` dropped first. It prints the CPU of
 * one fire's statements, so an index's cost can be read as the difference between two runs.
 *
 *   node bench/dist/fire/index-cost.js [--jobs 10000] [--fill 30] [--rounds 30] [--repeat 3]
 *                                      [--drop fire_scheduled_idx,…] [--add "CREATE INDEX …"]
 *                                      [--times-per-claim 1] [--fold-mark]
 *
 * Each round fires every job once (10,000 fires); `--fill` rounds go first so the table holds
 * 300,000 records, as it does after a 30-second bench/fire window at 10,000 a second. The run is
 * repeated `--repeat` times on a fresh file and each figure printed: the spread says how far apart
 * two configurations must be to differ. `--fold-mark` writes the dispatch mark in the result's
 * statement instead of on its own (a held mark, dispatch/mark-batcher.ts).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { openStore } from '@tickwheel/server/internal';

const { values } = parseArgs({
  options: {
    jobs: { type: 'string', default: '10000' },
    fill: { type: 'string', default: '30' },
    rounds: { type: 'string', default: '30' },
    repeat: { type: 'string', default: '3' },
    drop: { type: 'string', default: '' },
    add: { type: 'string', multiple: true, default: [] },
    'times-per-claim': { type: 'string', default: '1' },
    'fold-mark': { type: 'boolean', default: false },
  },
});
const jobs = Number(values.jobs);
const fill = Number(values.fill);
const rounds = Number(values.rounds);
const drops = values.drop.split(',').filter((name) => name.length > 0);
const timesPerClaim = Number(values['times-per-claim']);
const BATCH = 100;
const T0 = Date.UTC(2026, 10, 27);

const INSERT_FIRE = `INSERT INTO fire (job_id, app_id, claim_job_id, scheduled_at, trigger_type, executor_handler,
  executor_param, shard_index, shard_total, status, retry_count, alarm_status, claimed_by_epoch, created_at) VALUES
  ${Array.from({ length: BATCH }, () => "(?, 1, ?, ?, 'CRON', 'demoJobHandler', '', 0, 1, 'pending', 0, 0, 1, ?)").join(', ')}
  RETURNING id`;
const ADVANCE =
  'UPDATE job SET next_fire_at = v.value ->> 1 FROM json_each(?) AS v WHERE job.id = v.value ->> 0';
const FENCE = `UPDATE fire SET sent_to = v.value ->> 1 FROM json_each(?) AS v
  WHERE fire.id = v.value ->> 0 AND +fire.status = 'pending'`;
const MARK = `UPDATE fire SET status = CASE WHEN status = 'pending' THEN 'dispatched' ELSE status END,
  trigger_at = v.value ->> 1, executor_address = v.value ->> 2, trigger_code = 200, trigger_msg = '',
  executor_instance = 'bench' FROM json_each(?) AS v WHERE fire.id = v.value ->> 0`;
const FINISH = `UPDATE fire SET status = 'succeeded', handle_code = 200, handle_msg = '', handle_at = v.value ->> 1
  FROM json_each(?) AS v WHERE fire.id = v.value ->> 0 AND +fire.status IN ('pending', 'dispatched')`;
/** The result with its run's held dispatch mark, as finish.ts writes them together. */
const FINISH_WITH_MARK = `UPDATE fire SET status = 'succeeded', handle_code = 200, handle_msg = '', handle_at = v.value ->> 1,
  trigger_at = COALESCE(v.value ->> 2, trigger_at), executor_address = COALESCE(v.value ->> 3, executor_address),
  trigger_code = COALESCE(v.value ->> 4, trigger_code), trigger_msg = COALESCE(v.value ->> 5, trigger_msg),
  executor_instance = COALESCE(v.value ->> 6, executor_instance)
  FROM json_each(?) AS v WHERE fire.id = v.value ->> 0 AND +fire.status IN ('pending', 'dispatched')`;
const foldMark = values['fold-mark'];

async function once(): Promise<number> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'tw-bench-index-'));
  const store = await openStore({ database: `sqlite:${path.join(dir, 'bench.db')}` });
  try {
    const conn = store.connection;
    if (conn.dialect !== 'sqlite') throw new Error('index-cost measures SQLite');
    const db = conn.sqlite;
    for (const name of drops) db.exec(`DROP INDEX ${name}`);
    for (const statement of values.add) db.exec(statement);
    const insertJob =
      db.prepare(`INSERT INTO job (app_id, name, author, alarm_email, schedule_type, schedule_conf,
      time_zone, misfire_strategy, executor_route_strategy, executor_handler, executor_param, executor_block_strategy,
      executor_timeout, executor_fail_retry_count, glue_type, glue_source, glue_remark, glue_updated_at, child_job_ids,
      trigger_status, next_fire_at, created_at, updated_at) VALUES (1, 'bench', 'bench', '', 'FIX_RATE', '1', 'UTC',
      'DO_NOTHING', 'ROUND', 'demoJobHandler', '', 'SERIAL_EXECUTION', 0, 0, 'BEAN', '', '', 0, '', 1, ?, 0, 0)`);
    db.transaction(() => {
      for (let i = 0; i < jobs; i++) insertJob.run(T0);
    })();
    const insert = db.prepare(INSERT_FIRE);
    const advance = db.prepare(ADVANCE);
    const fence = db.prepare(FENCE);
    const mark = db.prepare(MARK);
    const finish = db.prepare(FINISH);
    const finishWithMark = db.prepare(FINISH_WITH_MARK);
    const inParts = (ids: number[], write: (part: number[]) => void) => {
      for (let at = 0; at < ids.length; at += BATCH) {
        const part = ids.slice(at, at + BATCH);
        db.transaction(() => write(part)).immediate();
      }
    };
    // Seconds n … n + timesPerClaim - 1: each claim batch records that many times of BATCH /
    // timesPerClaim jobs and advances each job once; the fence, the mark and the result then go
    // second by second, in batches of the fires due that second, as the pipeline sends them.
    const round = (n: number, checkpoints: boolean) => {
      const ids: number[][] = Array.from({ length: timesPerClaim }, () => []);
      const jobsPerClaim = BATCH / timesPerClaim;
      for (let first = 1; first <= jobs; first += jobsPerClaim) {
        const args: number[] = [];
        const advances: [number, number][] = [];
        for (let id = first; id < first + jobsPerClaim; id++) {
          for (let t = 0; t < timesPerClaim; t++) {
            const scheduledAt = T0 + (n + t) * 1000;
            args.push(id, id, scheduledAt, scheduledAt);
          }
          advances.push([id, T0 + (n + timesPerClaim) * 1000]);
        }
        db.transaction(() => {
          const rows = insert.all(args) as { id: number }[];
          for (const [i, row] of rows.entries()) ids[i % timesPerClaim]!.push(row.id);
          advance.run(JSON.stringify(advances));
        }).immediate();
      }
      ids.forEach((due, t) => {
        const scheduledAt = T0 + (n + t) * 1000;
        inParts(due, (part) => fence.run(JSON.stringify(part.map((id) => [id, 'http://127.0.0.1:9999/']))));
        if (foldMark) {
          inParts(due, (part) =>
            finishWithMark.run(
              JSON.stringify(
                part.map((id) => [
                  id,
                  scheduledAt + 5,
                  scheduledAt,
                  'http://127.0.0.1:9999/',
                  200,
                  '',
                  'bench',
                ]),
              ),
            ),
          );
        } else {
          inParts(due, (part) =>
            mark.run(JSON.stringify(part.map((id) => [id, scheduledAt, 'http://127.0.0.1:9999/']))),
          );
          inParts(due, (part) => finish.run(JSON.stringify(part.map((id) => [id, scheduledAt + 5]))));
        }
        // The checkpoint thread's work, in the measured thread here: it is part of a fire's cost.
        if (checkpoints && (n + t) % 3 === 0) db.pragma('wal_checkpoint(PASSIVE)');
      });
    };
    for (let n = 0; n < fill; n += timesPerClaim) round(n, false);
    const before = process.cpuUsage();
    for (let n = fill; n < fill + rounds; n += timesPerClaim) {
      round(n, true);
    }
    const used = process.cpuUsage(before);
    return (used.user + used.system) / (rounds * jobs);
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (jobs % BATCH !== 0) throw new Error(`--jobs must be a multiple of ${BATCH}`);
if (!Number.isInteger(timesPerClaim) || BATCH % timesPerClaim !== 0) {
  throw new Error(`--times-per-claim must divide ${BATCH}`);
}
if (fill % timesPerClaim !== 0 || rounds % timesPerClaim !== 0) {
  throw new Error('--fill and --rounds must be multiples of --times-per-claim');
}
const figures: string[] = [];
for (let i = 0; i < Number(values.repeat); i++) figures.push((await once()).toFixed(1));
const what = [
  drops.length === 0 ? 'indexes as migrated' : `without ${drops.join(', ')}`,
  ...values.add.map((statement) => `with ${statement}`),
  ...(timesPerClaim === 1 ? [] : [`${timesPerClaim} times of a job a claim`]),
  ...(foldMark ? ['the mark written with the result'] : []),
].join('; ');
console.log(`${what}: ${figures.join(' / ')} µs of CPU per fire (load ${os.loadavg()[0]!.toFixed(1)})`);

/**
 * What a fire costs PostgreSQL, without a server or executors beside it: the store's own hot
 * statements (the claim with the job's advance, the load, the send fence, the result with its
 * held dispatch mark — or the mark on its own first, `--separate-marks`), in batches of 500 as
 * the server sends them, on a fresh schema `tw_bench_cost_<random>` migrated as the server
 * migrates it. Time is simulated: each round fires every job once (a FIX_RATE 1 s job, one
 * second later each round), as fast as the database answers. It prints, per fire, the database
 * server's CPU (its processes' from /proc, database-cpu.ts), the write-ahead log written, and
 * the harness's wall time, over the `--rounds` rounds that follow `--fill` rounds of filling.
 * With nothing else running on the machine, two configurations compare far closer than in
 * bench/fire, where the server and the executors share the cores.
 *
 *   node bench/dist/fire/postgres-cost.js [--jobs 5000] [--fill 20] [--rounds 20] [--repeat 3]
 *     [--drop fire_scheduled_idx,…] [--add "CREATE INDEX …"] [--fillfactor 100]
 *     [--separate-marks] [--vacuum-job-every 0] [--vacuum-fire-every 0] [--per-round] [--keep] [--postgres-url postgres://…/test]
 *
 * `--vacuum-job-every K` vacuums the job table every K rounds, `--vacuum-fire-every K` the fire
 * table (0: never; this machine's PostgreSQL runs no autovacuum). `--fillfactor` sets the fire
 * table's before filling. `--per-round` also prints the database's µs a fire of each measured
 * round (does it grow?) and the wall time of each kind of statement in it. `--keep` leaves the
 * schema (and says which).
 */
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { JOB_DEFAULTS, loadDueFires, openStore, shardLeaseName } from '@tickwheel/server/internal';
import { sql } from 'kysely';
import { onAdminConnection } from './database.js';
import { databaseCpuByProcess, databaseCpuSecondsSince, walPosition } from './database-cpu.js';

const USAGE = `bench/fire/postgres-cost — a fire's cost to PostgreSQL (the comment at the top of bench/fire/postgres-cost.ts says more)

  node bench/dist/fire/postgres-cost.js [--jobs 5000] [--fill 20] [--rounds 20] [--repeat 3]
    [--drop fire_scheduled_idx,…] [--add "CREATE INDEX …"] [--fillfactor 100]
    [--separate-marks] [--vacuum-job-every 0] [--vacuum-fire-every 0] [--per-round] [--keep] [--postgres-url postgres://…/test]`;

const { values } = parseArgs({
  options: {
    jobs: { type: 'string', default: '5000' },
    fill: { type: 'string', default: '20' },
    rounds: { type: 'string', default: '20' },
    repeat: { type: 'string', default: '3' },
    drop: { type: 'string', default: '' },
    add: { type: 'string', multiple: true, default: [] },
    fillfactor: { type: 'string', default: '100' },
    'separate-marks': { type: 'boolean', default: false },
    'vacuum-job-every': { type: 'string', default: '0' },
    'vacuum-fire-every': { type: 'string', default: '0' },
    'per-round': { type: 'boolean', default: false },
    keep: { type: 'boolean', default: false },
    'postgres-url': { type: 'string', default: 'postgres://postgres@127.0.0.1:5432/test' },
    help: { type: 'boolean', default: false },
  },
});
if (values.help) {
  console.log(USAGE);
  process.exit(0);
}
const jobs = Number(values.jobs);
const fill = Number(values.fill);
const rounds = Number(values.rounds);
const fillfactor = Number(values.fillfactor);
const vacuumJobEvery = Number(values['vacuum-job-every']);
const separateMarks = values['separate-marks'];
const vacuumFireEvery = Number(values['vacuum-fire-every']);
const drops = values.drop.split(',').filter((name) => name.length > 0);
const BATCH = 500;
const SHARDS = 64;
const NODE = 'cost';
const ADDRESS = 'http://127.0.0.1:9999/';
const postgresUrl = values['postgres-url'];

interface Figures {
  databaseUsPerFire: number;
  walBytesPerFire: number;
  wallUsPerFire: number;
}

async function once(): Promise<Figures> {
  const schema = `tw_bench_cost_${randomBytes(6).toString('hex')}`;
  await onAdminConnection(postgresUrl, (db) => db.schema.createSchema(schema).execute());
  const store = await openStore({ database: `${postgresUrl}?schema=${schema}`, poolSize: 4 });
  try {
    for (const name of drops) await sql`DROP INDEX ${sql.ref(name)}`.execute(store.db);
    for (const statement of values.add) await sql.raw(statement).execute(store.db);
    if (fillfactor !== 100)
      await sql.raw(`ALTER TABLE fire SET (fillfactor = ${fillfactor})`).execute(store.db);
    const t0 = Date.now() + 60_000;
    const app = await store.apps.createApp({ appName: 'cost', title: 'Cost', addressType: 'AUTO' }, t0);
    const rows = Array.from({ length: jobs }, (_, i) => ({
      ...JOB_DEFAULTS,
      app_id: app.id,
      name: `job ${i}`,
      author: 'bench',
      time_zone: 'UTC',
      schedule_type: 'FIX_RATE',
      schedule_conf: '1',
      executor_handler: 'noop',
      glue_updated_at: t0,
      trigger_status: 1,
      next_fire_at: t0,
      created_at: t0,
      updated_at: t0,
    }));
    for (let i = 0; i < rows.length; i += 1000)
      await store.db
        .insertInto('job')
        .values(rows.slice(i, i + 1000))
        .execute();
    const shards: { index: number; epoch: number }[] = [];
    for (let index = 0; index < SHARDS; index++) {
      const held = await store.leases.acquireOrRenewLease(shardLeaseName(index), NODE, 7 * 86_400_000, t0);
      if (held === null) throw new Error(`could not take shard ${index}`);
      shards.push({ index, epoch: held.epoch });
    }
    const epochs = new Map(shards.map((s) => [s.index, s.epoch]));

    /** Wall ms of each statement kind in the round that ran last. */
    const stageMs = { claim: 0, load: 0, fence: 0, mark: 0, finish: 0 };
    const timed = async <T>(stage: keyof typeof stageMs, work: () => Promise<T>): Promise<T> => {
      const started = performance.now();
      try {
        return await work();
      } finally {
        stageMs[stage] += performance.now() - started;
      }
    };
    const round = async (r: number): Promise<number> => {
      for (const stage of Object.keys(stageMs) as (keyof typeof stageMs)[]) stageMs[stage] = 0;
      const now = t0 + r * 1000;
      let fired = 0;
      for (;;) {
        const claim = await timed('claim', () =>
          store.fires.claimDueFires({
            nodeId: NODE,
            nowMs: now,
            horizonMs: now,
            shardTotal: SHARDS,
            shards,
            limit: BATCH,
            misfireWindowMs: 86_400_000,
          }),
        );
        const ids = claim.fires.map((f) => f.fireId);
        if (ids.length > 0) {
          await timed('load', () => loadDueFires(store.connection, ids));
          const sends = claim.fires.map((f) => ({
            fireId: f.fireId,
            address: ADDRESS,
            lease: { name: shardLeaseName(f.job.id % SHARDS), epoch: epochs.get(f.job.id % SHARDS) ?? 0 },
          }));
          const answers = await timed('fence', () => store.fires.fenceSends(NODE, now, sends));
          if (answers.some((a) => !a.admitted)) throw new Error('a send was not admitted');
          const marks = ids.map((fireId) => ({
            fireId,
            triggerAt: now + 2,
            executorAddress: ADDRESS,
            triggerCode: 200,
            triggerMsg: 'trigger CRON',
            executorInstance: 'bench-instance-0001',
          }));
          if (separateMarks) await timed('mark', () => store.fires.markDispatched(marks));
          await timed('finish', () =>
            store.fires.finishFires(
              marks.map((mark) => ({
                fireId: mark.fireId,
                handleCode: 200,
                handleMsg: null,
                handleAt: now + 5,
                ...(separateMarks ? {} : { dispatch: mark }),
              })),
            ),
          );
          fired += ids.length;
        }
        if (claim.scanned < BATCH) break;
      }
      if (vacuumJobEvery > 0 && r % vacuumJobEvery === 0) await sql`VACUUM job`.execute(store.db);
      if (vacuumFireEvery > 0 && r % vacuumFireEvery === 0) await sql`VACUUM fire`.execute(store.db);
      return fired;
    };

    for (let r = 0; r < fill; r++) await round(r);
    const cpu0 = databaseCpuByProcess('postgres');
    const wal0 = (await walPosition(store)) ?? 0n;
    const started = performance.now();
    let fires = 0;
    const perRound: string[] = [];
    const stagesByRound: string[] = [];
    for (let r = fill; r < fill + rounds; r++) {
      const cpuBefore = databaseCpuByProcess('postgres');
      const fired = await round(r);
      fires += fired;
      perRound.push((((databaseCpuSecondsSince('postgres', cpuBefore) ?? 0) * 1e6) / fired).toFixed(0));
      stagesByRound.push(
        Object.values(stageMs)
          .map((ms) => Math.round(ms))
          .join('/'),
      );
    }
    if (values['per-round']) {
      console.log(`  database µs/fire by round: ${perRound.join(' ')}`);
      console.log(`  wall ms claim/load/fence/mark/finish by round: ${stagesByRound.join(' ')}`);
    }
    const wallMs = performance.now() - started;
    const cpu = databaseCpuSecondsSince('postgres', cpu0) ?? 0;
    const wal = Number(((await walPosition(store)) ?? 0n) - wal0);
    return {
      databaseUsPerFire: (cpu * 1e6) / fires,
      walBytesPerFire: wal / fires,
      wallUsPerFire: (wallMs * 1000) / fires,
    };
  } finally {
    await store.close();
    if (values.keep) console.log(`  kept: ${postgresUrl}?schema=${schema}`);
    else
      await onAdminConnection(postgresUrl, (db) =>
        db.schema.dropSchema(schema).ifExists().cascade().execute(),
      );
  }
}

const label = [
  drops.length > 0 ? `drop ${drops.join(',')}` : '',
  values.add.length > 0 ? `add ${values.add.join('; ')}` : '',
  fillfactor !== 100 ? `fillfactor ${fillfactor}` : '',
  values['separate-marks'] ? 'separate marks' : '',
  vacuumJobEvery > 0 ? `vacuum job every ${vacuumJobEvery}` : '',
  vacuumFireEvery > 0 ? `vacuum fire every ${vacuumFireEvery}` : '',
]
  .filter((part) => part !== '')
  .join(', ');
console.log(
  `bench/fire/postgres-cost: ${jobs} jobs, ${fill} rounds filling then ${rounds} measured${label === '' ? '' : `; ${label}`}`,
);
for (let i = 0; i < Number(values.repeat); i++) {
  const f = await once();
  console.log(
    `  database ${f.databaseUsPerFire.toFixed(1)} µs/fire, WAL ${Math.round(f.walBytesPerFire)} bytes/fire, wall ${f.wallUsPerFire.toFixed(1)} µs/fire`,
  );
}

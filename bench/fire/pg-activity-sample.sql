-- What PostgreSQL's backends are doing during a bench/fire run, sampled: 1,000 looks at
-- pg_stat_activity ~15 ms apart (about 20 s), each active client backend's statement and wait
-- event, into tw_bench_activity (database `test`). Start it inside a run's window, e.g.
--   (sleep 15; psql -h 127.0.0.1 -U postgres -d test -q -f bench/fire/pg-activity-sample.sql) &
--   node bench/dist/fire/run.js --stores postgres --shapes spread --sizes 10000 --seconds 30 --warmup 5
-- then count the samples by statement ('CPU' is a sample with no wait event):
--   SELECT coalesce(wait_event_type || ':' || wait_event, 'CPU') AS w,
--          left(regexp_replace(query, '\s+', ' ', 'g'), 70) AS q, count(*)
--   FROM tw_bench_activity GROUP BY 1, 2 ORDER BY 3 DESC LIMIT 15;
--   DROP TABLE tw_bench_activity;
-- The sampler is one backend more on the machine (a lead, not a figure of the run's own).
CREATE TABLE IF NOT EXISTS tw_bench_activity (at timestamptz, pid int, state text, wait_event_type text, wait_event text, query text);
TRUNCATE tw_bench_activity;
DO $$
BEGIN
  FOR i IN 1..1000 LOOP
    INSERT INTO tw_bench_activity
      SELECT clock_timestamp(), pid, state, wait_event_type, wait_event, left(query, 120)
      FROM pg_stat_activity
      WHERE state = 'active' AND pid <> pg_backend_pid() AND backend_type = 'client backend';
    PERFORM pg_stat_clear_snapshot();
    PERFORM pg_sleep(0.015);
  END LOOP;
END $$;

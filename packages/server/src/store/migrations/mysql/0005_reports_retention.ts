/**
 * 0005 — daily figures per app for the dashboard, replacing the server-wide `daily_report`
 * (which nothing wrote yet). The reports monitor recomputes a day's rows from the fire records
 * while they exist; the rows stay when retention deletes those records, so the dashboard reads
 * this small table and never the fire records. `lateness_histogram` holds the day's lateness
 * as sparse `[[lowerBoundMs, count], ...]` buckets so days and apps can be merged into exact
 * counts and percentiles within a bucket's width.
 *
 * MySQL commits DDL implicitly: both statements can run again (IF EXISTS, IF NOT EXISTS).
 */
export default `
DROP TABLE IF EXISTS daily_report;

CREATE TABLE IF NOT EXISTS daily_app_report (
  day VARCHAR(10) NOT NULL,
  app_id BIGINT NOT NULL,
  running_count BIGINT NOT NULL,
  succeeded_count BIGINT NOT NULL,
  failed_count BIGINT NOT NULL,
  timeout_count BIGINT NOT NULL,
  killed_count BIGINT NOT NULL,
  skipped_count BIGINT NOT NULL,
  dispatch_failed_count BIGINT NOT NULL,
  lateness_p50_ms BIGINT NULL,
  lateness_p99_ms BIGINT NULL,
  lateness_histogram TEXT NOT NULL,
  run_count BIGINT NOT NULL,
  mean_run_ms BIGINT NULL,
  updated_at BIGINT NOT NULL,
  PRIMARY KEY (day, app_id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;
`;

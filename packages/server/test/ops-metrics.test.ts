import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMetrics } from '../src/ops/metrics.js';
import { type ApiHarness, expectError, startApiServer } from './helpers/api-server.js';

describe('metrics', () => {
  it('counts fires by trigger type, failures, lateness, dispatch latency and results by code', async () => {
    const metrics = createMetrics({ processMetrics: false });
    metrics.fireDispatched({
      triggerType: 'CRON',
      dueAt: 1000,
      triggerAt: 1004,
      latencyMs: 2,
      triggerCode: 200,
    });
    metrics.fireDispatched({
      triggerType: 'CRON',
      dueAt: 1000,
      triggerAt: 1030,
      latencyMs: 900,
      triggerCode: 500,
      lane: 'slow',
    });
    metrics.fireDispatched({
      triggerType: 'API',
      dueAt: 1000,
      triggerAt: 1000,
      latencyMs: 0,
      triggerCode: 500,
    });
    metrics.resultRecorded(200);
    metrics.resultRecorded(502);
    metrics.resultRecorded(200);
    const { body, contentType } = await metrics.render();
    expect(contentType).toContain('text/plain');
    expect(body).toContain('tickwheel_fires_total{trigger_type="CRON"} 2');
    expect(body).toContain('tickwheel_fires_total{trigger_type="API"} 1');
    expect(body).toContain('tickwheel_dispatch_failures_total{trigger_type="CRON"} 1');
    expect(body).toContain('tickwheel_fire_lateness_seconds_bucket{le="0.005"} 2');
    expect(body).toContain('tickwheel_fire_lateness_seconds_count 3');
    expect(body).toContain('tickwheel_dispatch_latency_seconds_count{lane="fast"} 1');
    expect(body).toContain('tickwheel_dispatch_latency_seconds_count{lane="slow"} 1');
    expect(body).toContain('tickwheel_results_total{handle_code="200"} 2');
    expect(body).toContain('tickwheel_results_total{handle_code="502"} 1');
  });

  it('reports executors online, the wheel size and shards owned, set or read at scrape time', async () => {
    let waiting = 7;
    const metrics = createMetrics({ processMetrics: false, wheelSize: () => waiting });
    metrics.setExecutorsOnline(3);
    metrics.setShardsOwned(64);
    expect((await metrics.render()).body).toContain('tickwheel_wheel_size 7');
    waiting = 9;
    const { body } = await metrics.render();
    expect(body).toContain('tickwheel_wheel_size 9');
    expect(body).toContain('tickwheel_executors_online 3');
    expect(body).toContain('tickwheel_shards_owned 64');
  });

  it('keeps two servers in one process apart (no shared global registry)', async () => {
    const a = createMetrics({ processMetrics: false });
    const b = createMetrics({ processMetrics: false });
    a.resultRecorded(500);
    expect((await b.render()).body).not.toContain('handle_code="500"');
  });

  it('adds the process metrics (CPU, memory) by default', async () => {
    expect((await createMetrics().render()).body).toContain('tickwheel_process_cpu_seconds_total');
  });
});

describe('GET /metrics', () => {
  let api: ApiHarness;
  beforeAll(async () => {
    api = await startApiServer();
  });
  afterAll(async () => {
    await api.close();
  });

  it('exposes the named series to an authenticated scraper in the Prometheus format', async () => {
    api.metrics.fireDispatched({
      triggerType: 'MISFIRE',
      dueAt: 0,
      triggerAt: 10,
      latencyMs: 1,
      triggerCode: 200,
    });
    const res = await api.call('GET', '/metrics');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('text/plain; version=0.0.4');
    for (const series of [
      'tickwheel_fires_total{trigger_type="MISFIRE"} 1',
      '# TYPE tickwheel_fire_lateness_seconds histogram',
      '# TYPE tickwheel_dispatch_latency_seconds histogram',
      '# TYPE tickwheel_results_total counter',
      '# TYPE tickwheel_executors_online gauge',
      '# TYPE tickwheel_wheel_size gauge',
    ]) {
      expect(res.body).toContain(series);
    }
  });

  it('answers 401 without credentials', async () => {
    expectError(await api.call('GET', '/metrics', { token: null }), 401, 'TW_ERR_UNAUTHENTICATED');
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiHarness, startApiServer } from './helpers/api-server.js';

describe('health probes', () => {
  let api: ApiHarness;
  beforeAll(async () => {
    api = await startApiServer();
  });
  afterAll(async () => {
    await api.close();
  });

  it('answers /healthz without credentials while the process serves', async () => {
    const res = await api.call('GET', '/healthz', { token: null });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ status: 'ok' });
  });

  it('answers /readyz 200 when the store answers and the scheduler runs', async () => {
    const res = await api.call('GET', '/readyz', { token: null });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ status: 'ready', checks: { store: 'ok', scheduler: 'ok' } });
  });

  it('answers /readyz 503 while the scheduler is not running', async () => {
    api.schedulerRunning = false;
    try {
      const res = await api.call('GET', '/readyz', { token: null });
      expect(res.statusCode).toBe(503);
      expect(res.json()).toEqual({ status: 'not ready', checks: { store: 'ok', scheduler: 'not running' } });
    } finally {
      api.schedulerRunning = true;
    }
  });
});

describe('readiness without a store', () => {
  it('answers /readyz 503 naming the store when the database is gone', async () => {
    const api = await startApiServer('postgres');
    try {
      await api.store.close();
      const res = await api.call('GET', '/readyz', { token: null });
      expect(res.statusCode).toBe(503);
      expect(res.json().checks.store).toMatch(/^unreachable: /);
      expect((await api.call('GET', '/healthz', { token: null })).statusCode).toBe(200);
    } finally {
      await api.close();
    }
  });
});

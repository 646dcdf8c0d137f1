import { afterEach, describe, expect, it } from 'vitest';
import { resolveServerOptions } from '../src/options.js';
import { type E2eServer, startServer } from './helpers/e2e.js';

const PASSWORD = 'the admin password';
const servers: E2eServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function serverWith(trustProxy?: string[]): Promise<string> {
  const started = await startServer({ adminPassword: PASSWORD, ...(trustProxy ? { trustProxy } : {}) });
  servers.push(started);
  return started.server.url.replace(/\/$/, '');
}

function login(url: string, password: string, forwardedFor: string): Promise<Response> {
  return fetch(`${url}/api/v1/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-forwarded-for': forwardedFor },
    body: JSON.stringify({ username: 'admin', password }),
  });
}

async function failFromAddresses(url: string, addresses: (i: number) => string): Promise<void> {
  // Different usernames, so only the per-address limit (20) can trip.
  for (let i = 0; i < 20; i += 1) {
    const res = await fetch(`${url}/api/v1/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': addresses(i) },
      body: JSON.stringify({ username: `guess-${i}`, password: 'wrong' }),
    });
    expect(res.status).toBe(401);
  }
}

describe('the sign-in rate limit over HTTP', () => {
  it('counts the client X-Forwarded-For names when the proxy is trusted', async () => {
    const url = await serverWith(['127.0.0.1']);
    await failFromAddresses(url, () => '203.0.113.5');
    const limited = await login(url, PASSWORD, '203.0.113.5');
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await limited.json()).error.code).toBe('TW_ERR_RATE_LIMITED');
    expect((await login(url, PASSWORD, '203.0.113.6')).status).toBe(200);
  });

  it('a storm of wrong admin passwords from one address does not keep the admin out of another', async () => {
    const url = await serverWith(['127.0.0.1']);
    for (let i = 0; i < 12; i += 1) {
      const res = await login(url, `wrong-${i}`, '203.0.113.66');
      expect([401, 429]).toContain(res.status);
    }
    const storming = await login(url, PASSWORD, '203.0.113.66');
    expect(storming.status).toBe(429);
    expect((await storming.json()).error.message).toMatch(/try again in \d+ minutes?$/);

    expect((await login(url, PASSWORD, '203.0.113.7')).status).toBe(200);
  });

  it('ignores X-Forwarded-For by default, so a client cannot dodge the limit by forging it', async () => {
    const url = await serverWith();
    await failFromAddresses(url, (i) => `198.51.100.${i}`);
    expect((await login(url, PASSWORD, '198.51.100.200')).status).toBe(429);
  });

  it('refuses a trustProxy that is neither true, false nor a list of addresses, naming it', () => {
    expect(() => resolveServerOptions({ trustProxy: 'yes' as unknown as boolean })).toThrow(
      expect.objectContaining({ code: 'TW_ERR_INVALID_OPTION', field: 'trustProxy' }),
    );
    expect(resolveServerOptions({ trustProxy: ['10.0.0.0/8'] }).trustProxy).toEqual(['10.0.0.0/8']);
    expect(resolveServerOptions({}).trustProxy).toBe(false);
  });
});

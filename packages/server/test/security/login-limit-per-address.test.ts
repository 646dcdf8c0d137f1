/**
 * The sign-in limit counts failures per (username, client address): a stranger who tries the
 * admin's password from one address holds back only that address, never the admin elsewhere.
 * Two real client addresses on loopback (127.0.0.2 and 127.0.0.3 bound as the connections' local
 * address), and the same through a trusted proxy's X-Forwarded-For.
 */
import { Agent } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { type E2eServer, startServer } from '../helpers/e2e.js';
import { callHttp, type HttpCallOptions } from '../helpers/http-api.js';

const PASSWORD = 'the admin password';
/** More than the 5 failures a (username, address) may have before its first wait. */
const BAD_PASSWORDS = 6;

const servers: E2eServer[] = [];
const agents: Agent[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
  await Promise.all(agents.splice(0).map((a) => a.close()));
});

async function serverWith(trustProxy?: string[]): Promise<string> {
  const started = await startServer({ adminPassword: PASSWORD, ...(trustProxy ? { trustProxy } : {}) });
  servers.push(started);
  return started.server.url;
}

/** Connections from `address` (a loopback address other than 127.0.0.1). */
function fromAddress(address: string): Pick<HttpCallOptions, 'dispatcher'> {
  const agent = new Agent({ localAddress: address });
  agents.push(agent);
  return { dispatcher: agent };
}

function signIn(url: string, password: string, from: Pick<HttpCallOptions, 'headers' | 'dispatcher'>) {
  return callHttp(url, 'POST', '/api/v1/login', { ...from, body: { username: 'admin', password } });
}

describe('bad passwords from one address', () => {
  it('five or more wrong admin passwords from one client address do not lock the admin out from another', async () => {
    const url = await serverWith();
    const attacker = fromAddress('127.0.0.2');
    const admin = fromAddress('127.0.0.3');
    for (let i = 0; i < BAD_PASSWORDS; i += 1) {
      const res = await signIn(url, `wrong-${i}`, attacker);
      expect([401, 429]).toContain(res.status);
    }
    // The limit did trip: the attacker's address is held back even with the right password.
    const held = await signIn(url, PASSWORD, attacker);
    expect(held.status).toBe(429);
    expect(((await held.json()) as { error: { code: string } }).error.code).toBe('TW_ERR_RATE_LIMITED');

    expect((await signIn(url, PASSWORD, admin)).status).toBe(200);
  });

  it('behind a trusted proxy, the addresses are the X-Forwarded-For ones: the admin still gets in from another', async () => {
    const url = await serverWith(['127.0.0.1']);
    const attacker = { headers: { 'x-forwarded-for': '203.0.113.10' } };
    for (let i = 0; i < BAD_PASSWORDS; i += 1) {
      const res = await signIn(url, `wrong-${i}`, attacker);
      expect([401, 429]).toContain(res.status);
    }
    expect((await signIn(url, PASSWORD, attacker)).status).toBe(429);

    expect((await signIn(url, PASSWORD, { headers: { 'x-forwarded-for': '198.51.100.20' } })).status).toBe(
      200,
    );
  });
});

import { describe, expect, it } from 'vitest';
import { generateApiToken, hashApiToken } from '../src/security/api-tokens.js';
import { safeEqual } from '../src/security/constant-time.js';
import { hashPassword, UNUSABLE_PASSWORD_HASH, verifyPassword } from '../src/security/passwords.js';

describe('passwords', () => {
  it('verifies the password it hashed and refuses any other', async () => {
    const hash = await hashPassword('correct horse battery staple');
    expect(await verifyPassword('correct horse battery staple', hash)).toBe(true);
    expect(await verifyPassword('correct horse battery stapler', hash)).toBe(false);
    expect(await verifyPassword('', hash)).toBe(false);
  });

  it('stores scrypt with its parameters and a fresh salt, never the password', async () => {
    const a = await hashPassword('same password');
    const b = await hashPassword('same password');
    expect(a).toMatch(/^scrypt\$32768\$8\$1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
    expect(a).not.toBe(b);
    expect(a).not.toContain('same password');
  });

  it('treats a hash it cannot read as a wrong password, without throwing', async () => {
    for (const stored of [
      '',
      'plain-text',
      'scrypt$3$8$1$AAAA$AAAA',
      'scrypt$1073741824$8$1$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
      'bcrypt$x',
    ]) {
      expect(await verifyPassword('anything', stored)).toBe(false);
    }
  });

  it('matches no password with the hash used for unknown users', async () => {
    expect(await verifyPassword('', UNUSABLE_PASSWORD_HASH)).toBe(false);
    expect(await verifyPassword('admin', UNUSABLE_PASSWORD_HASH)).toBe(false);
  });

  it('hashes a password the same whatever its Unicode normalisation', async () => {
    const hash = await hashPassword('caf\u00e9');
    expect(await verifyPassword('cafe\u0301', hash)).toBe(true);
  });
});

describe('API tokens and comparisons', () => {
  it('generates distinct prefixed 256-bit tokens and hashes them with SHA-256', () => {
    const a = generateApiToken();
    expect(a).toMatch(/^tw_[A-Za-z0-9_-]{43}$/);
    expect(generateApiToken()).not.toBe(a);
    expect(hashApiToken(a)).toMatch(/^[0-9a-f]{64}$/);
    expect(hashApiToken(a)).toBe(hashApiToken(a));
  });

  it('compares secrets of any lengths', () => {
    expect(safeEqual('token', 'token')).toBe(true);
    expect(safeEqual('token', 'token2')).toBe(false);
    expect(safeEqual('', 'x')).toBe(false);
  });
});

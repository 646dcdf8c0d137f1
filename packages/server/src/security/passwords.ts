/**
 * Password hashing with scrypt. A stored hash carries its own parameters
 * (`scrypt$<N>$<r>$<p>$<salt>$<key>`, salt and key in base64url), so the cost can be raised later
 * without invalidating the hashes already stored.
 */
import { randomBytes, type ScryptOptions, scrypt as scryptCallback, timingSafeEqual } from 'node:crypto';

/**
 * N = 2^15, r = 8, p = 1: 32 MiB and some tens of milliseconds per check. OWASP's floor for
 * scrypt is N = 2^17, but that is 128 MiB a login, which a small server cannot give to several
 * logins at once; 2^15 keeps a guess expensive while bounding the memory a login burst takes.
 */
const COST = { N: 2 ** 15, r: 8, p: 1 } as const;
const KEY_BYTES = 32;
const SALT_BYTES = 16;
const PREFIX = 'scrypt';

function deriveKey(
  password: string,
  salt: Buffer,
  options: ScryptOptions,
  keyBytes: number,
): Promise<Buffer> {
  // scrypt needs 128·N·r bytes; Node's default maxmem (32 MiB) is just short of N = 2^15, r = 8.
  const maxmem = 256 * (options.N ?? 0) * (options.r ?? 0) + 1024 * 1024;
  return new Promise((resolve, reject) => {
    scryptCallback(password.normalize('NFC'), salt, keyBytes, { ...options, maxmem }, (err, key) =>
      err ? reject(err) : resolve(key),
    );
  });
}

/**
 * Hashes a password for storage.
 *
 * @example
 * const hash = await hashPassword('correct horse battery staple');
 * await verifyPassword('correct horse battery staple', hash); // true
 */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const key = await deriveKey(password, salt, COST, KEY_BYTES);
  return [PREFIX, COST.N, COST.r, COST.p, salt.toString('base64url'), key.toString('base64url')].join('$');
}

/** True when `password` matches `stored`; false for a wrong password or a hash it cannot read. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parsed = parseHash(stored);
  if (parsed === undefined) return false;
  const key = await deriveKey(password, parsed.salt, parsed.options, parsed.key.length);
  return timingSafeEqual(key, parsed.key);
}

/** A hash of a password nobody has, for checking a login whose user does not exist in the same time as one that does. */
export const UNUSABLE_PASSWORD_HASH = [
  PREFIX,
  COST.N,
  COST.r,
  COST.p,
  Buffer.alloc(SALT_BYTES).toString('base64url'),
  Buffer.alloc(KEY_BYTES).toString('base64url'),
].join('$');

interface ParsedHash {
  options: ScryptOptions;
  salt: Buffer;
  key: Buffer;
}

function parseHash(stored: string): ParsedHash | undefined {
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== PREFIX) return undefined;
  const [N, r, p] = parts.slice(1, 4).map(Number) as [number, number, number];
  const valid = (n: number, max: number) => Number.isInteger(n) && n >= 1 && n <= max;
  // Bounds keep a tampered row from making one login allocate gigabytes.
  if (!valid(N, 2 ** 20) || !valid(r, 32) || !valid(p, 16) || (N & (N - 1)) !== 0) return undefined;
  const salt = Buffer.from(parts[4]!, 'base64url');
  const key = Buffer.from(parts[5]!, 'base64url');
  if (salt.length === 0 || key.length < 16 || key.length > 128) return undefined;
  return { options: { N, r, p }, salt, key };
}

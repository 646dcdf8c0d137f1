/** Parsers of flag values shared by the commands; a bad value is a usage error naming the flag. */
import { isIP } from 'node:net';
import { InvalidArgumentError } from 'commander';

/** `--port 9999`, `--log-retention-days 30`: digits only; ranges are checked by the executor's options. */
export function parseWholeNumber(value: string): number {
  if (!/^\d+$/.test(value.trim())) throw new InvalidArgumentError('must be a whole number.');
  return Number(value);
}

/** `--server a,b --server c` → `[a, b, c]`. */
export function collectUrls(value: string, previous: string[] | undefined): string[] {
  const urls = value
    .split(',')
    .map((url) => url.trim())
    .filter((url) => url !== '');
  return [...(previous ?? []), ...urls];
}

/** The names of address ranges Fastify's trustProxy takes besides addresses and CIDRs. */
const TRUSTED_RANGE_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

/**
 * `--trust-proxy true|false|10.0.0.1,10.1.0.0/16,loopback` → `true`, `false` or the list. Each
 * entry is checked here, so a typo is a usage error naming the entry, not a server that trusts
 * the wrong hop.
 */
export function parseTrustProxy(value: string): boolean | string[] {
  const text = value.trim();
  if (text === 'true') return true;
  if (text === 'false') return false;
  const entries = text
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  if (entries.length === 0) {
    throw new InvalidArgumentError('must be true, false or a comma-separated list of proxy addresses.');
  }
  for (const entry of entries) {
    if (!isTrustedProxyEntry(entry)) {
      throw new InvalidArgumentError(
        `${entry} is not an IP address, a CIDR (10.0.0.0/8) or one of loopback, linklocal, uniquelocal.`,
      );
    }
  }
  return entries;
}

function isTrustedProxyEntry(entry: string): boolean {
  if (TRUSTED_RANGE_NAMES.has(entry)) return true;
  const [address = '', prefix, ...rest] = entry.split('/');
  const family = isIP(address);
  if (family === 0 || rest.length > 0) return false;
  if (prefix === undefined) return true;
  const max = family === 4 ? 32 : 128;
  return /^\d{1,3}$/.test(prefix) && Number(prefix) <= max;
}

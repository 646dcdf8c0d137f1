/** Parsers of flag values shared by the commands; a bad value is a usage error naming the flag. */
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

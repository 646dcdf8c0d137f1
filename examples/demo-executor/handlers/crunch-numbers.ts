/**
 * `crunch-numbers`: CPU-bound work (counting primes), registered with `isolation: 'worker'`. It
 * never yields to the event loop, so an AbortSignal could not stop it; in a worker thread the
 * executor terminates it on timeout or kill, and meanwhile the executor keeps answering.
 *
 * The executor loads this module by itself in the worker: it must be a file of its own whose
 * default export is the handler. Parameter: the upper bound (default 1,000,000).
 */
import type { JobContext } from '@tickwheel/executor';

const DEFAULT_LIMIT = 1_000_000;

export default function crunchNumbers(ctx: JobContext): string {
  const limit = limitFrom(ctx.param);
  ctx.log(`counting the primes below ${limit}`);
  const started = performance.now();
  const primes = countPrimesBelow(limit);
  const ms = Math.round(performance.now() - started);
  ctx.log(`found ${primes} primes in ${ms} ms`);
  return `${primes} primes below ${limit}`;
}

/** Trial division: deliberately plain CPU work that holds the thread until it is done. */
export function countPrimesBelow(limit: number): number {
  let count = 0;
  for (let n = 2; n < limit; n++) if (isPrime(n)) count++;
  return count;
}

function isPrime(n: number): boolean {
  for (let divisor = 2; divisor * divisor <= n; divisor++) if (n % divisor === 0) return false;
  return true;
}

function limitFrom(param: string): number {
  const limit = Number.parseInt(param, 10);
  return Number.isInteger(limit) && limit > 0 ? limit : DEFAULT_LIMIT;
}

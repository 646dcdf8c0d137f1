/** Checks on OS processes for tests that stop scripts and their children. */
import { readFileSync } from 'node:fs';

/**
 * Whether `pid` still runs. A zombie does not: an orphan whose parent died waits for PID 1 to
 * reap it, and some container PID 1s never do, so the exited process stays listed in state Z.
 */
export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ESRCH') return false;
    throw err;
  }
  if (process.platform !== 'linux') return true;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false; // gone between the two checks
  }
}

/** Resolves true once `pid` no longer runs, false after `timeoutMs`. */
export async function waitUntilStopped(pid: number, timeoutMs = 5_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (isRunning(pid)) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return true;
}

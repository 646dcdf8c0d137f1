/**
 * Probes for orchestrators: `/healthz` answers while the process serves HTTP; `/readyz` while
 * the store answers a query and the scheduler runs, so a load balancer stops sending traffic to
 * a node that cannot do its work.
 */
import type { Store } from '../store/index.js';

/** Longest a readiness probe waits for the store. */
export const STORE_CHECK_TIMEOUT_MS = 2_000;

export interface Readiness {
  ready: boolean;
  checks: { store: string; scheduler: string };
}

export async function checkReadiness(store: Store, schedulerRunning: () => boolean): Promise<Readiness> {
  const storeCheck = await checkStore(store);
  const scheduler = schedulerRunning() ? 'ok' : 'not running';
  return { ready: storeCheck === 'ok' && scheduler === 'ok', checks: { store: storeCheck, scheduler } };
}

async function checkStore(store: Store): Promise<string> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<string>((resolve) => {
    timer = setTimeout(
      () => resolve(`no answer within ${STORE_CHECK_TIMEOUT_MS} ms`),
      STORE_CHECK_TIMEOUT_MS,
    );
  });
  const query = store.ping().then(
    () => 'ok',
    (err: unknown) => `unreachable: ${(err as Error)?.message ?? String(err)}`,
  );
  try {
    return await Promise.race([query, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

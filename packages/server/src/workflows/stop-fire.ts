/**
 * Stopping a node's run when its workflow run is stopped: a run on an executor is killed there
 * (on the address recorded on the record, as `killFire` does) and the record finished as
 * killed; a record not sent yet (pending, or a retry waiting for its time) is finished as killed
 * at once, so it is never sent.
 */
import type { ProtocolGeneration } from '@tickwheel/protocol';
import type { Logger } from 'pino';
import { sameAddress } from '../api/addresses.js';
import type { Dispatcher } from '../dispatch/dispatcher.js';
import type { FinishedFire, FireResult, FireRow, Store } from '../store/index.js';

export interface StopFireDeps {
  store: Pick<Store, 'apps' | 'registry'>;
  dispatcher: Pick<Dispatcher, 'kill'>;
  finishFires(results: FireResult[]): Promise<FinishedFire[]>;
  clock: { now(): number };
  logger: Pick<Logger, 'warn'>;
}

export function stopFire(deps: StopFireDeps): (fire: FireRow, message: string) => Promise<void> {
  return async (fire, message) => {
    const address = fire.executor_address ?? fire.sent_to ?? null;
    if (address !== null) {
      const app = await deps.store.apps.findAppById(fire.app_id);
      const appName = app?.app_name ?? '';
      const entries = appName === '' ? [] : await deps.store.registry.listAlive(0, appName);
      const entry = entries.find((row) => sameAddress(row.registry_value, address));
      const outcome = await deps.dispatcher.kill({
        fireId: fire.id,
        jobId: fire.job_id,
        logDateTime: fire.scheduled_at,
        executor: { address, protocol: (entry?.protocol ?? 'G2') as ProtocolGeneration, appName },
      });
      if (!outcome.ok) {
        deps.logger.warn(
          { fireId: fire.id, address, msg: outcome.msg },
          'the executor did not kill a stopped workflow node; recorded killed anyway',
        );
      }
    }
    await deps.finishFires([
      { fireId: fire.id, handleCode: 500, handleMsg: message, handleAt: deps.clock.now(), status: 'killed' },
    ]);
  };
}

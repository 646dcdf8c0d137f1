/**
 * One executor of the chaos cluster, in its own process so the harness can kill -9 it. A fixed
 * port (a restart keeps its address), every server node as server address, and two handlers:
 * `noop` and `slow` (sleeps `slowMs`). Each run is appended to the journal (journal.ts) when it
 * starts and when it ends, synchronously, before the handler goes on.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { createExecutor, type JobContext } from '@tickwheel/executor';
import { Journal } from './journal.js';
import type { ChildMessage, ExecutorNodeConfig } from './messages.js';

const config = JSON.parse(process.argv[2] ?? '{}') as ExecutorNodeConfig;
process.once('disconnect', () => process.exit(1));
const journal = new Journal(config.journal);

const note = (ctx: JobContext, phase: 'start' | 'end') =>
  journal.append({
    jobId: ctx.jobId,
    logId: ctx.logId,
    scheduledAt: ctx.logDateTime,
    executor: config.name,
    phase,
    at: Date.now(),
  });

const executor = createExecutor({
  appName: config.appName,
  serverAddresses: config.serverAddresses,
  accessToken: config.accessToken,
  host: '127.0.0.1',
  port: config.port,
  logDir: config.logDir,
  logRetentionDays: 1,
});
executor.handle('noop', (ctx) => {
  note(ctx, 'start');
  note(ctx, 'end');
  return undefined;
});
executor.handle('slow', async (ctx) => {
  note(ctx, 'start');
  await sleep(config.slowMs);
  note(ctx, 'end');
  return undefined;
});
await executor.start();
send({ type: 'ready', url: executor.address ?? '' });

process.on('message', (message: { type?: string }) => {
  if (message?.type !== 'stop') return;
  executor.stop({ timeoutMs: 5_000 }).then(
    () => process.exit(0),
    () => process.exit(1),
  );
});

function send(message: ChildMessage): void {
  process.send?.(message);
}

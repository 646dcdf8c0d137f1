/**
 * The executor under measurement, in its own process so its CPU time is its own: a no-op BEAN
 * handler on an ephemeral loopback port. Talks to the harness over IPC: it sends `{ready,
 * address}` once listening and answers `{cpu}` with `process.cpuUsage()` when asked.
 */
import { createExecutor, type JobLogLayout } from '@tickwheel/executor';

const [serverAddress, logDir, token, logLayout] = process.argv.slice(2);
if (!serverAddress || !logDir || !token || !logLayout)
  throw new Error('usage: executor-process SERVER LOG_DIR TOKEN LOG_LAYOUT');

const executor = createExecutor({
  appName: 'bench',
  serverAddresses: [serverAddress],
  accessToken: token,
  host: '127.0.0.1',
  port: 0,
  logDir,
  logLayout: logLayout as JobLogLayout,
  logRetentionDays: 1,
});
executor.handle('noop', async () => undefined);
await executor.start();
process.send?.({ ready: true, address: executor.address });

process.on('message', (message: { type: string }) => {
  if (message.type === 'cpu') process.send?.({ cpu: process.cpuUsage() });
  if (message.type === 'stop') void executor.stop().then(() => process.exit(0));
});

/**
 * One server node of the chaos cluster, in its own process so the harness can kill -9 it. Its
 * own `nodeId` and port, the database through its proxy. Sends `{type: 'ready', url}` once
 * listening; stops gracefully on `{type: 'stop'}`; exits when the harness goes away.
 *
 * `clockOffsetMs` (the `clock` scenario) shifts the node's local clock by that much
 * (`internal.clockOffsetMs`, for tests and chaos runs only): the node then runs as a host whose
 * clock is wrong would, and its database-clock correction is what is under test.
 */
import { createServer } from '@tickwheel/server';
import type { ChildMessage, NodeConfig } from './messages.js';

const config = JSON.parse(process.argv[2] ?? '{}') as NodeConfig;
process.once('disconnect', () => process.exit(1));

const offset = config.clockOffsetMs;

const server = await createServer({
  port: config.port,
  host: '127.0.0.1',
  database: config.database,
  dataDir: config.dataDir,
  accessToken: config.accessToken,
  nodeId: config.nodeId,
  initialSecretsFile: false,
  logLevel: 'warn',
  ...(offset === 0 ? {} : { internal: { clockOffsetMs: offset } }),
});
send({ type: 'ready', url: server.url });

process.on('message', (message: { type?: string }) => {
  if (message?.type !== 'stop') return;
  server.stop().then(
    () => process.exit(0),
    (err: unknown) => {
      console.error(err);
      process.exit(1);
    },
  );
});

function send(message: ChildMessage): void {
  process.send?.(message);
}

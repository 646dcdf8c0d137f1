/**
 * A TCP proxy on loopback between one server node and the database, in one of three modes:
 *
 * - `pass`: forwards both ways;
 * - `reset-all`: resets every open connection and each new one (a restarting database, a
 *   pgbouncer restart, a firewall sending RST);
 * - `black-hole`: accepts new connections but neither forwards nor answers, and stops forwarding
 *   on the open ones, keeping every socket open (a host that drops packets: the client waits
 *   for its own timeouts). A connection black-holed stays silent for good, also after `pass`.
 *
 * It also knows the local port of each of its connections to the database, so the harness can
 * tell the node's sessions in `pg_stat_activity` / `information_schema.PROCESSLIST`.
 * (@tickwheel/test-fixtures/tcp-proxy is the tests' version, TypeScript that only vitest runs.)
 */
import net from 'node:net';

export type ProxyMode = 'pass' | 'reset-all' | 'black-hole';

export interface TcpProxy {
  readonly port: number;
  readonly mode: ProxyMode;
  setMode(mode: ProxyMode): void;
  /** Local ports of the open connections to the database. */
  upstreamPorts(): number[];
  close(): Promise<void>;
}

interface Pair {
  client: net.Socket;
  upstream: net.Socket | undefined;
  /** Set once black-holed: nothing passes any more. */
  silenced: boolean;
}

export async function startTcpProxy(targetPort: number, targetHost = '127.0.0.1'): Promise<TcpProxy> {
  const pairs = new Set<Pair>();
  let mode: ProxyMode = 'pass';

  const silence = (pair: Pair) => {
    pair.silenced = true;
    pair.client.unpipe();
    pair.upstream?.unpipe();
    // Read and drop whatever arrives, so neither side's buffers fill and nothing is answered.
    pair.client.removeAllListeners('data');
    pair.client.on('data', () => undefined);
    pair.client.resume();
    pair.upstream?.removeAllListeners('data');
    pair.upstream?.on('data', () => undefined);
    pair.upstream?.resume();
  };

  const server = net.createServer((client) => {
    client.on('error', () => undefined);
    if (mode === 'reset-all') {
      client.resetAndDestroy();
      return;
    }
    const pair: Pair = { client, upstream: undefined, silenced: false };
    pairs.add(pair);
    client.on('close', () => {
      pairs.delete(pair);
      pair.upstream?.destroy();
    });
    if (mode === 'black-hole') {
      silence(pair);
      return;
    }
    const upstream = net.connect(targetPort, targetHost);
    pair.upstream = upstream;
    upstream.on('error', () => undefined);
    upstream.on('close', () => {
      // A black-holed pair keeps its client socket open: the node must find out by itself.
      if (!pair.silenced) client.destroy();
    });
    client.pipe(upstream);
    upstream.pipe(client);
  });
  server.on('error', () => undefined);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));

  return {
    port: (server.address() as net.AddressInfo).port,
    get mode() {
      return mode;
    },
    setMode(next) {
      mode = next;
      if (next === 'reset-all') {
        for (const pair of pairs) {
          pair.upstream?.destroy();
          pair.client.resetAndDestroy();
        }
        pairs.clear();
      } else if (next === 'black-hole') {
        for (const pair of pairs) if (!pair.silenced) silence(pair);
      }
    },
    upstreamPorts() {
      const ports: number[] = [];
      for (const pair of pairs) {
        const port = pair.upstream?.localPort;
        if (!pair.silenced && port !== undefined) ports.push(port);
      }
      return ports;
    },
    async close() {
      for (const pair of pairs) {
        pair.upstream?.destroy();
        pair.client.destroy();
      }
      pairs.clear();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

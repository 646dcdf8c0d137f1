/**
 * A TCP proxy on loopback owned by a test, between a server and its database: `outage()` resets
 * every connection through it and resets each new one until `restore()`, as a restarting
 * database or pgbouncer would, without touching the shared database service.
 */
import net from 'node:net';

export interface TcpProxy {
  port: number;
  /** Resets the open connections and every new one until `restore()`. */
  outage(): void;
  /**
   * Accepts new connections but passes nothing on, until `restore()`, as a database host that
   * drops packets; a connection made meanwhile stays silent for good.
   */
  stall(): void;
  /**
   * As `stall()`, and the open connections fall silent too, for good: what is sent on them goes
   * nowhere and no answer comes, as when a network path or a database host stops answering
   * without a reset. `restore()` lets new connections through; those stay dead.
   */
  blackHole(): void;
  restore(): void;
  close(): Promise<void>;
}

export async function startTcpProxy(targetPort: number, targetHost = '127.0.0.1'): Promise<TcpProxy> {
  const sockets = new Set<net.Socket>();
  const pairs = new Set<[net.Socket, net.Socket]>();
  let down = false;
  let stalled = false;
  const track = (socket: net.Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
  };
  const server = net.createServer((client) => {
    track(client);
    if (down) {
      client.resetAndDestroy();
      return;
    }
    if (stalled) {
      client.resume();
      return;
    }
    const upstream = net.connect(targetPort, targetHost);
    track(upstream);
    client.pipe(upstream);
    upstream.pipe(client);
    const pair: [net.Socket, net.Socket] = [client, upstream];
    pairs.add(pair);
    client.on('close', () => {
      pairs.delete(pair);
      upstream.destroy();
    });
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    outage() {
      down = true;
      for (const socket of sockets) socket.resetAndDestroy();
    },
    stall() {
      stalled = true;
    },
    blackHole() {
      stalled = true;
      for (const [client, upstream] of pairs) {
        client.unpipe(upstream);
        upstream.unpipe(client);
        // Read and drop, so neither side sees back-pressure or an end.
        client.on('data', () => undefined);
        upstream.on('data', () => undefined);
      }
      pairs.clear();
    },
    restore() {
      down = false;
      stalled = false;
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * Whether the server's port can be bound, asked before `tickwheel start` writes anything: a
 * taken port found only at the server's own `listen` would come after the data directory, the
 * store and the first-start secrets were made.
 */
import { createServer } from 'node:net';

/** Why `host:port` cannot be listened on, or undefined when it can (or the check cannot tell). */
export async function portUnavailable(host: string, port: number): Promise<string | undefined> {
  // Port 0 asks the system for a free one: nothing to check.
  if (port === 0) return undefined;
  const probe = createServer();
  try {
    await new Promise<void>((resolve, reject) => {
      probe.once('error', reject);
      probe.listen({ port, host, exclusive: true }, () => resolve());
    });
  } catch (err) {
    // An invalid port or host: the server's own validation names the flag.
    if (err instanceof RangeError) return undefined;
    return reasonOf(err as NodeJS.ErrnoException, host, port);
  }
  await new Promise((resolve) => probe.close(resolve));
  return undefined;
}

function reasonOf(err: NodeJS.ErrnoException, host: string, port: number): string {
  const where = `${host.includes(':') ? `[${host}]` : host}:${port}`;
  const another = `choose another port with --port <port> (e.g. tickwheel start --port ${port + 1}, or npm start -- --port ${port + 1})`;
  switch (err.code) {
    case 'EADDRINUSE':
      return `cannot listen on ${where}: the port is already in use (another Tickwheel, or another program); ${another}`;
    case 'EACCES':
      return `cannot listen on ${where}: permission denied (ports below 1024 need privileges); ${another}`;
    case 'EADDRNOTAVAIL':
    case 'ENOTFOUND':
      return `cannot listen on ${where}: ${host} is not an address of this machine; choose another with --host`;
    default:
      return `cannot listen on ${where}: ${err.message}`;
  }
}

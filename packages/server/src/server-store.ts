/**
 * Which store each server made by `createServer` runs on: kept here, off the public
 * `TickwheelServer`, for `storeOf` in `@tickwheel/server/internal` (the command line, the
 * benchmarks and the tests reach a running server's store that way; an embedder uses the REST API
 * and `TickwheelServer.settings`).
 */
import type { TickwheelServer } from './server.js';
import type { Store } from './store/index.js';

const stores = new WeakMap<TickwheelServer, Store>();

/** Records `server`'s store (`createServer` does, once per server). */
export function registerServerStore(server: TickwheelServer, store: Store): TickwheelServer {
  stores.set(server, store);
  return server;
}

/**
 * The store `server` runs on. Unstable (see internal.ts). Throws on anything that is not a server
 * made by `createServer`.
 */
export function storeOf(server: TickwheelServer): Store {
  const store = stores.get(server);
  if (store === undefined) {
    throw new Error('storeOf: not a server made by createServer (no store is recorded for it)');
  }
  return store;
}

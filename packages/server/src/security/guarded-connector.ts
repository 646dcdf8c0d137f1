/**
 * The undici connector of every HTTP client the server calls out with (executors, alarm webhooks
 * and robots): it connects by the server's {@link NetworkRules}. Apart from network-rules.ts so
 * that the rules, which the server's options check, load without undici.
 */
import { isIP } from 'node:net';
import { buildConnector } from 'undici';
import { DeniedAddressError, type NetworkRules } from './network-rules.js';

/**
 * A connector for `new Agent({ connect })`: an IP address in a denied range fails before any
 * socket is opened; a host name is resolved by the rules' `lookup`, which keeps only the
 * addresses that may be connected to.
 *
 * @example
 * const agent = new Agent({ connections: 32, connect: guardedConnector(rules) });
 */
export function guardedConnector(
  rules: NetworkRules,
  options: buildConnector.BuildOptions = {},
): buildConnector.connector {
  const connect = buildConnector({ ...options, lookup: rules.lookup });
  return (params, callback) => {
    const range = isIP(params.hostname) === 0 ? undefined : rules.deniedRangeOf(params.hostname);
    if (range === undefined) {
      connect(params, callback);
      return;
    }
    const error = new DeniedAddressError(params.hostname, range);
    // undici expects the callback after the connector returned, as a socket would call it.
    queueMicrotask(() => callback(error, null));
  };
}

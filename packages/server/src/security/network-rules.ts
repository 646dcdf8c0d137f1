/**
 * Where the server may connect when it calls out to an address someone else chose: executors
 * (a MANUAL app's address list, an executor's registration) and alarm channels (webhooks, robots,
 * SMTP relays). Those calls carry the executor token and job data, and relay the answer, so an
 * address pointing at a cloud metadata service would hand its credentials to whoever set it.
 *
 * Denied by default: special-purpose ranges that are never an executor nor a webhook — link-local
 * (169.254.0.0/16, fe80::/10, where cloud metadata services answer), the metadata addresses
 * outside it (fd00:ec2::254, 100.100.100.200), "this network" 0.0.0.0/8, multicast, broadcast,
 * the reserved 240.0.0.0/4, the documentation ranges, and the IPv6 forms that embed a denied IPv4
 * address (IPv4-mapped, IPv4-compatible, NAT64, 6to4). Loopback (127.0.0.0/8, ::1) and the private
 * ranges (10/8, 172.16/12, 192.168/16, fc00::/7, 100.64/10) stay allowed: executors live there.
 * An admin allows a denied range (an executor on a link-local network) with the server option
 * `allowedNetworks`.
 *
 * The check is made on the address actually dialled, when the connection is made: an IP literal
 * before any socket is opened; a host name on every address it resolves to, the denied ones
 * dropped and none left failing the connection. So a name that resolves to a denied address is
 * refused too, and a DNS answer that changes between a check and the connect cannot slip through.
 */
import dns from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { TickwheelError } from '@tickwheel/protocol';
import ipaddr from 'ipaddr.js';

type Address = ipaddr.IPv4 | ipaddr.IPv6;
type Network = [Address, number];

/** A denied range an address fell in: its CIDR and what it is. */
export interface DeniedRange {
  cidr: string;
  name: string;
}

/** Denied unless allowed, most specific first (the first match names the range in errors). */
const DENIED: ReadonlyArray<readonly [cidr: string, name: string]> = [
  ['169.254.169.254/32', 'cloud metadata service'],
  ['100.100.100.200/32', 'cloud metadata service (Alibaba Cloud)'],
  ['fd00:ec2::254/128', 'cloud metadata service (AWS, IPv6)'],
  ['169.254.0.0/16', 'link-local'],
  ['fe80::/10', 'link-local'],
  ['0.0.0.0/8', '"this network"'],
  ['::/128', 'unspecified'],
  ['255.255.255.255/32', 'broadcast'],
  ['224.0.0.0/4', 'multicast'],
  ['ff00::/8', 'multicast'],
  ['240.0.0.0/4', 'reserved'],
  ['192.0.0.0/24', 'IETF protocol assignments'],
  ['192.0.2.0/24', 'documentation'],
  ['198.51.100.0/24', 'documentation'],
  ['203.0.113.0/24', 'documentation'],
  ['2001:db8::/32', 'documentation'],
  ['100::/64', 'discard-only'],
  ['fec0::/10', 'deprecated site-local'],
];

const DENIED_NETWORKS: ReadonlyArray<{ network: Network; range: DeniedRange }> = DENIED.map(
  ([cidr, name]) => ({ network: ipaddr.parseCIDR(cidr), range: { cidr, name } }),
);

/** IPv6 prefixes whose addresses carry an IPv4 address a packet ends up at, and where it sits. */
const IPV4_CARRIERS: ReadonlyArray<{ network: Network; firstPart: number; compatible?: true }> = [
  { network: ipaddr.parseCIDR('::ffff:0:0/96'), firstPart: 6 }, // IPv4-mapped
  { network: ipaddr.parseCIDR('64:ff9b::/96'), firstPart: 6 }, // NAT64
  { network: ipaddr.parseCIDR('2002::/16'), firstPart: 1 }, // 6to4
  { network: ipaddr.parseCIDR('::/96'), firstPart: 6, compatible: true }, // IPv4-compatible (deprecated)
];
/** Below ::1.0.0.0 an IPv4-compatible address is `::`, `::1` or unassigned, not an IPv4 address. */
const FIRST_IPV4_COMPATIBLE_PART = 0x0100;

export interface NetworkRulesOptions {
  /**
   * Networks (CIDRs, or single addresses) connected to even though they are in a denied range,
   * e.g. `['169.254.10.0/24']` for executors on a link-local network. Default none.
   */
  allowedNetworks?: readonly string[];
  /** Resolves host names (`dns.lookup`'s signature). Default `dns.lookup`. */
  lookup?: typeof dns.lookup;
}

/**
 * The outbound address rules of one server. Its HTTP clients connect through
 * `guardedConnector(rules)` (guarded-connector.ts); `lookup` is for a client that passes one to
 * `net.connect`, `allowedAddressOf` for one that connects to an address it is given.
 *
 * @example
 * const rules = new NetworkRules({ allowedNetworks: ['169.254.10.0/24'] });
 * rules.deniedRangeOf('169.254.169.254'); // undefined: allowed by the admin
 * rules.deniedRangeOf('fe80::1'); // { cidr: 'fe80::/10', name: 'link-local' }
 */
export class NetworkRules {
  private readonly allowed: readonly Network[];
  private readonly resolve: typeof dns.lookup;

  constructor(options: NetworkRulesOptions = {}) {
    this.allowed = parseNetworks(options.allowedNetworks ?? [], 'allowedNetworks');
    this.resolve = options.lookup ?? dns.lookup;
  }

  /** The denied range `address` (an IP address) is in, or undefined when it may be connected to. */
  deniedRangeOf(address: string): DeniedRange | undefined {
    const parsed = parseAddress(address);
    if (parsed === undefined) return undefined;
    const forms = [parsed, ...embeddedIPv4(parsed)];
    if (forms.some((form) => this.allowed.some((network) => matches(form, network)))) return undefined;
    for (const form of forms) {
      const denied = DENIED_NETWORKS.find(({ network }) => matches(form, network));
      if (denied !== undefined) return denied.range;
    }
    return undefined;
  }

  /**
   * A `net.connect` lookup that resolves the name and keeps only the addresses that may be
   * connected to; when none is left the connection fails with a {@link DeniedAddressError}.
   */
  readonly lookup: LookupFunction = (hostname, options, callback) => {
    this.resolve(hostname, { ...options, all: true }, (err, addresses) => {
      if (err !== null) {
        callback(err, '');
        return;
      }
      const allowed = addresses.filter((entry) => this.deniedRangeOf(entry.address) === undefined);
      const first = allowed[0];
      if (first === undefined) {
        const refused = addresses[0];
        const range = refused === undefined ? undefined : this.deniedRangeOf(refused.address);
        callback(
          range === undefined || refused === undefined
            ? Object.assign(new Error(`${hostname} resolved to no address`), { code: 'ENOTFOUND' })
            : new DeniedAddressError(refused.address, range, hostname),
          '',
        );
        return;
      }
      if (options.all === true) callback(null, allowed);
      else callback(null, first.address, first.family);
    });
  };

  /**
   * The address to connect to for `host` (a name or an IP address): the first one it resolves to
   * that may be connected to, for a client that connects to an address it is given (SMTP).
   *
   * @throws DeniedAddressError when every address is denied; the resolver's error when it fails.
   */
  allowedAddressOf(host: string): Promise<string> {
    const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
    if (isIP(bare) !== 0) {
      const range = this.deniedRangeOf(bare);
      return range === undefined
        ? Promise.resolve(bare)
        : Promise.reject(new DeniedAddressError(bare, range));
    }
    return new Promise((resolve, reject) => {
      this.lookup(bare, {}, (err, address) => {
        if (err !== null) reject(err);
        else resolve(address as string);
      });
    });
  }
}

/**
 * A connection refused by the network rules. Its message starts with `connect`, as Node's own
 * connection errors do, so callers that show those verbatim show this one too.
 */
export class DeniedAddressError extends TickwheelError {
  readonly address: string;
  readonly range: DeniedRange;

  constructor(address: string, range: DeniedRange, hostname?: string) {
    super(
      'TW_ERR_FORBIDDEN',
      `connect to ${hostname === undefined ? address : `${hostname} (${address})`} refused: the address is in a denied range (${range.cidr}, ${range.name}); an admin can allow it with the server option allowedNetworks`,
    );
    this.name = 'DeniedAddressError';
    this.address = address;
    this.range = range;
  }
}

/**
 * The CIDRs of an `allowedNetworks` option; a single address stands for itself alone.
 *
 * @throws TickwheelError `TW_ERR_INVALID_OPTION` naming the first entry that is neither.
 */
export function parseNetworks(entries: readonly string[], option: string): Network[] {
  if (!Array.isArray(entries)) {
    throw new TickwheelError('TW_ERR_INVALID_OPTION', `${option}: must be a list of CIDRs`, option);
  }
  return entries.map((entry, i) => {
    const text = typeof entry === 'string' ? entry.trim() : '';
    if (ipaddr.isValidCIDR(text)) return ipaddr.parseCIDR(text);
    const address = parseAddress(text);
    if (address !== undefined) return [address, address.kind() === 'ipv4' ? 32 : 128];
    throw new TickwheelError(
      'TW_ERR_INVALID_OPTION',
      `${option}[${i}]: ${JSON.stringify(entry)} is not a CIDR (169.254.10.0/24, fd12::/64) or an IP address`,
      `${option}[${i}]`,
    );
  });
}

/** `address` parsed (an IPv6 zone id such as `%eth0` ignored), or undefined when it is no IP address. */
function parseAddress(address: string): Address | undefined {
  const bare = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  if (isIP(bare) === 0) return undefined;
  try {
    return ipaddr.parse(bare);
  } catch {
    return undefined;
  }
}

/** The IPv4 address an IPv6 address carries (mapped, compatible, NAT64, 6to4), if any. */
function embeddedIPv4(address: Address): ipaddr.IPv4[] {
  if (address.kind() !== 'ipv6') return [];
  const v6 = address as ipaddr.IPv6;
  const carrier = IPV4_CARRIERS.find(({ network }) => matches(v6, network));
  if (carrier === undefined) return [];
  const high = v6.parts[carrier.firstPart] ?? 0;
  const low = v6.parts[carrier.firstPart + 1] ?? 0;
  if (carrier.compatible === true && high < FIRST_IPV4_COMPATIBLE_PART) return [];
  return [new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff])];
}

function matches(address: Address, network: Network): boolean {
  return address.kind() === network[0].kind() && address.match(network);
}

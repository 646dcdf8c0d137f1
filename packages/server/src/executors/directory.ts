/**
 * The executors each app can be dispatched to, held in memory so the dispatcher's hot path never
 * reads the database. The view is rebuilt from the registry and app tables by `refresh()` (the
 * registry monitor calls it every few seconds on every node, since executors may register with
 * any node) and patched at once by registrations and removals this node receives.
 */
import { PROTOCOL_GENERATIONS, type ProtocolGeneration, REGISTRY_GROUP_EXECUTOR } from '@tickwheel/protocol';
import type { ExecutorAddress } from '../dispatch/executor-client.js';
import { tokenIdOf } from '../executor-api/app-credentials.js';
import type { AppGroupRow, AppRepository, RegistryRepository, RegistryRow } from '../store/index.js';
import { type ExecutorMetrics, NO_EXECUTOR_METRICS } from './metrics.js';

export interface ExecutorDirectoryOptions {
  apps: Pick<AppRepository, 'listApps'>;
  registry: Pick<RegistryRepository, 'listAlive'>;
  clock: { now(): number };
  /**
   * The installation-wide executor token: what the apps in compatibility mode (and names no app
   * has) are called with. Default '' (tests of routing only).
   */
  installationToken?: string;
  /** An address unseen for this long is not online (the server's `executorDeadAfterMs`). */
  deadTimeoutMs: number;
  metrics?: Pick<ExecutorMetrics, 'executorsOnline'>;
}

/** An app as the directory needs it. */
export interface DirectoryApp {
  id: number;
  appName: string;
  addressType: 'AUTO' | 'MANUAL';
  /** The stored address list: the typed one of a MANUAL app, the last written refresh of an AUTO app. */
  addressList: string | null;
  /** The tokens its executors may hold, the app's current one first (see `tokensOf`). */
  tokens: readonly AppToken[];
}

/** A token an app's executors may hold, with its id (`tokenIdOf`) and how long it lasts. */
interface AppToken {
  token: string;
  id: string;
  /** Valid until then (the one a rotation replaced); undefined: for good. */
  until?: number;
}

interface Registration {
  protocol: ProtocolGeneration;
  seenAt: number;
  /** The token it registered with (`tokenIdOf`); undefined: unknown (registered before per-app tokens). */
  tokenId: string | undefined;
}

/** A registration or removal this node received, replayed over a refresh that was already reading. */
type LocalChange =
  | {
      kind: 'online';
      appName: string;
      address: string;
      protocol: ProtocolGeneration;
      seenAt: number;
      tokenId: string | undefined;
    }
  | { kind: 'offline'; appName: string; address: string };

const APP_PAGE = 1000;

/**
 * @example
 * const directory = new ExecutorDirectory({ apps: store.apps, registry: store.registry, clock });
 * await directory.refresh();
 * await dispatcher.dispatch(fire, directory.addressesOf(fire.appName));
 */
export class ExecutorDirectory {
  private readonly options: ExecutorDirectoryOptions;
  private readonly deadTimeoutMs: number;
  private readonly metrics: Pick<ExecutorMetrics, 'executorsOnline'>;
  private readonly installationToken: AppToken;
  /** app name → address → registration. */
  private registered = new Map<string, Map<string, Registration>>();
  private apps = new Map<string, DirectoryApp>();
  private appNamesById = new Map<number, string>();
  /** Dispatch lists, built on first use and dropped whenever what they derive from changes. */
  private readonly dispatchLists = new Map<string, readonly ExecutorAddress[]>();
  /**
   * When each AUTO app's dispatch list goes stale between refreshes: the moment its least recently
   * seen registration turns dead (`deadTimeoutMs` after it was seen). Absent: never (a MANUAL list).
   */
  private readonly listStaleAt = new Map<string, number>();
  /** Non-null while a refresh is reading: the local changes it must not lose. */
  private changesDuringRefresh: LocalChange[] | null = null;
  private refreshing: Promise<void> | undefined;

  constructor(options: ExecutorDirectoryOptions) {
    this.options = options;
    this.deadTimeoutMs = options.deadTimeoutMs;
    this.metrics = options.metrics ?? NO_EXECUTOR_METRICS;
    const installation = options.installationToken ?? '';
    this.installationToken = { token: installation, id: tokenIdOf(installation) };
  }

  /**
   * The executors a fire of this app may be dispatched to, sorted by address: the registered,
   * alive ones for an AUTO app (and for a name no app has yet), the typed list for a MANUAL app
   * (its executors need not register, as in XXL-JOB). A manual address that also registered
   * (under any app name) keeps the generation it registered with; others are spoken to in G2,
   * which every Tickwheel executor and every pre-3.5 XXL-JOB executor takes.
   */
  addressesOf(appName: string): readonly ExecutorAddress[] {
    let list = this.dispatchLists.get(appName);
    // An executor that stopped sending heartbeats leaves the list the moment it turns dead, as the
    // lost-run rule sees it, not at the next refresh: a retry of its lost run never goes back to it.
    const staleAt = this.listStaleAt.get(appName);
    if (staleAt !== undefined && this.options.clock.now() >= staleAt) list = undefined;
    if (list === undefined) {
      list = this.buildDispatchList(appName);
      this.dispatchLists.set(appName, list);
    }
    return list;
  }

  /**
   * `addressesOf` for an app row read just now: its address type and list are taken from the row,
   * not from the last refresh, so a MANUAL app (or a list) created or changed a moment ago on any
   * node is dispatched to at once. The fire pipeline reads the app with each fire and asks this.
   */
  addressesOfApp(app: AppAddressing): readonly ExecutorAddress[] {
    const known = this.apps.get(app.app_name);
    const tokens = this.tokensOf(app);
    if (app.address_type !== 'MANUAL') {
      // An app created or given a new token a moment ago (on any node): its executors registered
      // with a token the last refresh did not know, so take the row's.
      if (known !== undefined && !sameTokens(known.tokens, tokens)) {
        this.apps.set(app.app_name, { ...known, tokens });
        this.dispatchLists.delete(app.app_name);
      } else if (known === undefined && app.id !== undefined) {
        this.apps.set(app.app_name, {
          id: app.id,
          appName: app.app_name,
          addressType: app.address_type,
          addressList: app.address_list,
          tokens,
        });
        this.appNamesById.set(app.id, app.app_name);
        this.dispatchLists.delete(app.app_name);
      }
      return this.addressesOf(app.app_name);
    }
    if (
      known?.addressType === 'MANUAL' &&
      known.addressList === app.address_list &&
      known.tokens[0]?.token === tokens[0]?.token
    ) {
      return this.addressesOf(app.app_name);
    }
    return this.manualDispatchList(app.app_name, app.address_list, tokens);
  }

  /**
   * The token to call the executor at `address` of `appName` with: the one it registered with
   * when that is still valid for the app, else the app's current one (the installation token for
   * an app in compatibility mode or a name no app has). For calls the dispatch lists do not carry
   * a token for (a trigger's address list, a log read, a kill).
   */
  tokenFor(appName: string, address: string): string {
    const tokens = this.apps.get(appName)?.tokens ?? [this.installationToken];
    let registration: Registration | undefined;
    for (const spelling of spellingsOf(address)) {
      registration ??= this.registered.get(appName)?.get(spelling);
    }
    const held = registration === undefined ? undefined : this.validToken(tokens, registration);
    return (held ?? tokens[0] ?? this.installationToken).token;
  }

  /**
   * The protocol generation an address is known to speak: the one it registered with under
   * `appName`, else under any app (a MANUAL app may list an executor registered elsewhere), else
   * undefined. A trailing slash does not make another address.
   */
  generationOf(appName: string, address: string): ProtocolGeneration | undefined {
    for (const spelling of spellingsOf(address)) {
      const own = this.registered.get(appName)?.get(spelling);
      if (own !== undefined) return own.protocol;
    }
    for (const entries of this.registered.values()) {
      for (const spelling of spellingsOf(address)) {
        const other = entries.get(spelling);
        if (other !== undefined) return other.protocol;
      }
    }
    return undefined;
  }

  /** `addressesOf` by app id; empty for an id the last refresh did not see. */
  addressesOfAppId(appId: number): readonly ExecutorAddress[] {
    const appName = this.appNamesById.get(appId);
    return appName === undefined ? [] : this.addressesOf(appName);
  }

  /**
   * The registered, alive executors of an app whatever its address type, sorted by address (the
   * console's "online" list). One seen `deadTimeoutMs` ago or more is left out at once, as the
   * dispatch lists leave it out, not at the next refresh.
   */
  registeredOf(appName: string): ExecutorAddress[] {
    const entries = this.registered.get(appName);
    if (entries === undefined) return [];
    const deadAt = this.options.clock.now() - this.deadTimeoutMs;
    return [...entries]
      .filter(([, registration]) => registration.seenAt > deadAt)
      .map(([address, registration]) => ({ address, protocol: registration.protocol, appName }))
      .sort(byAddress);
  }

  /**
   * The registered executors a fire of `appName` may go to, each with the token to call it with:
   * those whose token is valid for the app now (an executor that registered with a token the app
   * no longer takes, or with the installation token under the name of an app with its own, is
   * left out).
   */
  private dispatchableOf(appName: string): ExecutorAddress[] {
    const entries = this.registered.get(appName);
    if (entries === undefined) return [];
    const tokens = this.apps.get(appName)?.tokens ?? [this.installationToken];
    const deadAt = this.options.clock.now() - this.deadTimeoutMs;
    let staleAt = Number.POSITIVE_INFINITY;
    const list: ExecutorAddress[] = [];
    for (const [address, registration] of entries) {
      // Seen too long ago: dead, though the last refresh (or a heartbeat since) still listed it.
      if (registration.seenAt <= deadAt) continue;
      const token = this.validToken(tokens, registration);
      if (token === undefined) continue;
      list.push({ address, protocol: registration.protocol, appName, ...tokenField(token) });
      staleAt = Math.min(staleAt, registration.seenAt + this.deadTimeoutMs);
    }
    if (staleAt !== Number.POSITIVE_INFINITY) this.listStaleAt.set(appName, staleAt);
    return list.sort(byAddress);
  }

  /** Of `tokens`, the one `registration` registered with, if it is still valid. */
  private validToken(tokens: readonly AppToken[], registration: Registration): AppToken | undefined {
    // Registered before per-app tokens: every executor had the installation token then.
    const id = registration.tokenId ?? this.installationToken.id;
    const now = this.options.clock.now();
    return tokens.find((t) => t.id === id && (t.until === undefined || t.until > now));
  }

  /** The tokens an app's executors may hold now: its current one first, then the one it replaced while that lasts. */
  private tokensOf(
    app: Pick<AppGroupRow, 'access_token' | 'previous_access_token' | 'previous_token_until'>,
  ): AppToken[] {
    const current = app.access_token === null ? this.installationToken : appToken(app.access_token);
    const until = app.previous_token_until === null ? undefined : Number(app.previous_token_until);
    if (until === undefined || until <= this.options.clock.now()) return [current];
    const previous =
      app.previous_access_token === null ? this.installationToken : appToken(app.previous_access_token);
    return [current, { ...previous, until }];
  }

  /** The apps as of the last refresh. */
  knownApps(): DirectoryApp[] {
    return [...this.apps.values()];
  }

  /** Distinct executor addresses online, over all apps. */
  onlineCount(): number {
    const addresses = new Set<string>();
    for (const entries of this.registered.values())
      for (const address of entries.keys()) addresses.add(address);
    return addresses.size;
  }

  /** Records a registration this node received: the executor is online at once. */
  markOnline(
    appName: string,
    address: string,
    protocol: ProtocolGeneration,
    seenAt: number,
    tokenId?: string,
  ): void {
    const change = { kind: 'online', appName, address, protocol, seenAt, tokenId } as const;
    this.changesDuringRefresh?.push(change);
    if (this.apply(change)) this.changed(appName);
  }

  /** Records a removal this node received (`registryRemove`): the executor is offline at once. */
  markOffline(appName: string, address: string): void {
    this.changesDuringRefresh?.push({ kind: 'offline', appName, address });
    if (this.apply({ kind: 'offline', appName, address })) this.changed(appName);
  }

  /**
   * Rebuilds the view from the database: apps, and registrations seen within the dead timeout.
   * Concurrent calls share one read.
   */
  refresh(): Promise<void> {
    this.refreshing ??= this.readAndReplace().finally(() => {
      this.refreshing = undefined;
    });
    return this.refreshing;
  }

  private async readAndReplace(): Promise<void> {
    this.changesDuringRefresh = [];
    try {
      const aliveSince = this.options.clock.now() - this.deadTimeoutMs;
      const [apps, rows] = await Promise.all([this.readApps(), this.options.registry.listAlive(aliveSince)]);
      this.replace(apps, rows);
      // A registration that committed after the read started is not in `rows`: keep it.
      for (const change of this.changesDuringRefresh) this.apply(change);
    } finally {
      this.changesDuringRefresh = null;
    }
    this.dispatchLists.clear();
    this.metrics.executorsOnline(this.onlineCount());
  }

  private async readApps(): Promise<AppGroupRow[]> {
    const apps: AppGroupRow[] = [];
    for (let offset = 0; ; offset += APP_PAGE) {
      const page = await this.options.apps.listApps({ limit: APP_PAGE, offset });
      apps.push(...page);
      if (page.length < APP_PAGE) return apps;
    }
  }

  private replace(apps: readonly AppGroupRow[], rows: readonly RegistryRow[]): void {
    this.apps = new Map(
      apps.map((app) => [
        app.app_name,
        {
          id: app.id,
          appName: app.app_name,
          addressType: app.address_type,
          addressList: app.address_list,
          tokens: this.tokensOf(app),
        },
      ]),
    );
    this.appNamesById = new Map(apps.map((app) => [app.id, app.app_name]));
    const registered = new Map<string, Map<string, Registration>>();
    for (const row of rows) {
      if (row.registry_group !== REGISTRY_GROUP_EXECUTOR) continue;
      const entries = registered.get(row.registry_key) ?? new Map<string, Registration>();
      registered.set(row.registry_key, entries);
      entries.set(row.registry_value, {
        protocol: generationOf(row.protocol),
        seenAt: row.updated_at,
        tokenId: row.token_id ?? undefined,
      });
    }
    this.registered = registered;
  }

  /** Applies one local change; true when the view changed. */
  private apply(change: LocalChange): boolean {
    const existing = this.registered.get(change.appName);
    if (change.kind === 'offline') {
      const removed = existing?.delete(change.address) ?? false;
      if (existing?.size === 0) this.registered.delete(change.appName);
      return removed;
    }
    const entries = existing ?? new Map<string, Registration>();
    this.registered.set(change.appName, entries);
    const before = entries.get(change.address);
    entries.set(change.address, {
      protocol: change.protocol,
      seenAt: change.seenAt,
      tokenId: change.tokenId,
    });
    // A heartbeat of an executor that had turned dead puts it back in the lists.
    return (
      before?.protocol !== change.protocol ||
      before.tokenId !== change.tokenId ||
      before.seenAt + this.deadTimeoutMs <= change.seenAt
    );
  }

  private changed(appName: string): void {
    // A MANUAL app of another name may list this address and take its generation from it.
    if (this.apps.get(appName)?.addressType === 'AUTO') this.dispatchLists.delete(appName);
    else this.dispatchLists.clear();
    this.metrics.executorsOnline(this.onlineCount());
  }

  private buildDispatchList(appName: string): readonly ExecutorAddress[] {
    this.listStaleAt.delete(appName);
    const app = this.apps.get(appName);
    if (app?.addressType !== 'MANUAL') return this.dispatchableOf(appName);
    return this.manualDispatchList(appName, app.addressList, app.tokens);
  }

  private manualDispatchList(
    appName: string,
    addressList: string | null,
    tokens: readonly AppToken[],
  ): ExecutorAddress[] {
    return manualAddresses(addressList)
      .map((address) => {
        let registration: Registration | undefined;
        for (const spelling of spellingsOf(address))
          registration ??= this.registered.get(appName)?.get(spelling);
        const token =
          (registration === undefined ? undefined : this.validToken(tokens, registration)) ?? tokens[0];
        return {
          address,
          protocol: this.generationOf(appName, address) ?? 'G2',
          appName,
          ...tokenField(token ?? this.installationToken),
        };
      })
      .sort(byAddress);
  }
}

/** What `addressesOfApp` reads of an app row. */
export type AppAddressing = Pick<
  AppGroupRow,
  | 'app_name'
  | 'address_type'
  | 'address_list'
  | 'access_token'
  | 'previous_access_token'
  | 'previous_token_until'
> & { id?: number };

/** Whether two token lists name the same tokens with the same ends. */
function sameTokens(a: readonly AppToken[], b: readonly AppToken[]): boolean {
  return a.length === b.length && a.every((t, i) => t.id === b[i]?.id && t.until === b[i]?.until);
}

/** The target's `accessToken` field: none for an empty token (a directory for routing only). */
function tokenField(token: AppToken): { accessToken?: string } {
  return token.token === '' ? {} : { accessToken: token.token };
}

function appToken(token: string): AppToken {
  return { token, id: tokenIdOf(token) };
}

/** An address as given, then with its trailing slash added or dropped. */
function spellingsOf(address: string): [string, string] {
  return [address, address.endsWith('/') ? address.slice(0, -1) : `${address}/`];
}

/** The addresses of a stored comma-separated list, trimmed, blanks and repeats dropped. */
export function manualAddresses(addressList: string | null): string[] {
  if (addressList === null) return [];
  return [
    ...new Set(
      addressList
        .split(',')
        .map((address) => address.trim())
        .filter((address) => address !== ''),
    ),
  ];
}

function generationOf(stored: string): ProtocolGeneration {
  return (PROTOCOL_GENERATIONS as readonly string[]).includes(stored) ? (stored as ProtocolGeneration) : 'G2';
}

function byAddress(a: ExecutorAddress, b: ExecutorAddress): number {
  return a.address < b.address ? -1 : a.address > b.address ? 1 : 0;
}

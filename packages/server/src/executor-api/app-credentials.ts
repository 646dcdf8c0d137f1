/**
 * Which app an executor token speaks for. Each app has its own executor token (`createApp` and
 * `rotateAppToken` answer it once); an app created before per-app tokens, or created with
 * `useInstallationToken`, still uses the installation-wide token (compatibility mode). A token
 * therefore grants one of two scopes:
 *
 * - an app's own token (or the one its last rotation replaced, until the overlap ends): that app
 *   only — registering under its name, calling back results of its records;
 * - the installation token: every app still in compatibility mode (and those whose rotation away
 *   from it is still in its overlap), plus names no app has yet, as XXL-JOB lets an executor
 *   register before its group exists. Such a registration is never dispatched to once an app of
 *   that name exists with its own token (the directory checks which token each executor
 *   registered with).
 *
 * Tokens are compared by their SHA-256 (a map lookup on the digest reveals nothing about the token
 * itself). The apps' tokens are read from the database at most every `maxAgeMs` (2 s), so a
 * rotation on another node is in force here within that; a token this node does not know makes it
 * read again (at most every 250 ms), so a new app's executors are not refused for a cache.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { AppCredentialRow, AppRepository } from '../store/index.js';

/** What a token may act for, and which token it was (`tokenIdOf`). */
export type TokenScope = { tokenId: string } & (
  | { kind: 'installation' }
  | { kind: 'app'; appId: number; appName: string }
);

/** The first 16 hex digits of a token's SHA-256: stored with a registration, never the token. */
export function tokenIdOf(token: string): string {
  return sha256(token).toString('hex').slice(0, TOKEN_ID_DIGITS);
}

const TOKEN_ID_DIGITS = 16;

export interface AppCredentialsOptions {
  /** The installation-wide executor token. */
  installationToken: string;
  apps: Pick<AppRepository, 'listAppCredentials'>;
  clock: { now(): number };
  /** Longest a read of the apps' tokens is used; default 2000 ms. */
  maxAgeMs?: number;
}

interface Holder {
  appId: number;
  appName: string;
  /** Accepted until then (a replaced token); undefined: for good. */
  until?: number;
}

const MIN_RELOAD_MS = 250;

export class AppCredentials {
  private readonly installationDigest: Buffer;
  private readonly maxAgeMs: number;
  /** Hex SHA-256 of an app token → the app it belongs to. */
  private holders = new Map<string, Holder>();
  /** App name → its row. */
  private apps = new Map<string, AppCredentialRow>();
  private loadedAt = Number.NEGATIVE_INFINITY;
  private loading: Promise<void> | undefined;

  constructor(private readonly options: AppCredentialsOptions) {
    this.installationDigest = sha256(options.installationToken);
    this.maxAgeMs = options.maxAgeMs ?? 2_000;
  }

  /** The scope of a presented `XXL-JOB-ACCESS-TOKEN`; undefined for a token nobody has. */
  async scopeOf(header: string | string[] | undefined): Promise<TokenScope | undefined> {
    const token = typeof header === 'string' ? header : '';
    const digest = sha256(token);
    const key = digest.toString('hex');
    const tokenId = key.slice(0, TOKEN_ID_DIGITS);
    if (timingSafeEqual(digest, this.installationDigest)) return { kind: 'installation', tokenId };
    if (token === '') return undefined;
    await this.fresh(this.maxAgeMs);
    let holder = this.holderOf(key);
    if (holder === undefined) {
      await this.fresh(MIN_RELOAD_MS);
      holder = this.holderOf(key);
    }
    return holder === undefined
      ? undefined
      : { kind: 'app', appId: holder.appId, appName: holder.appName, tokenId };
  }

  /**
   * Whether a token of `scope` may act for the app named `appName`: its own app; for the
   * installation token, an app in compatibility mode or still in its overlap away from it, or a
   * name no app has.
   */
  async mayActFor(scope: TokenScope, appName: string): Promise<boolean> {
    if (scope.kind === 'app') return scope.appName === appName;
    await this.fresh(this.maxAgeMs);
    const app = this.apps.get(appName);
    return app === undefined || this.takesInstallationToken(app);
  }

  /** The ids of the apps the installation token does not act for now (their records refuse its callbacks). */
  async appsWithOwnToken(): Promise<Set<number>> {
    await this.fresh(this.maxAgeMs);
    const ids = new Set<number>();
    for (const app of this.apps.values()) if (!this.takesInstallationToken(app)) ids.add(Number(app.id));
    return ids;
  }

  /** Forgets the last read: an app or its token changed on this node. */
  forget(): void {
    this.loadedAt = Number.NEGATIVE_INFINITY;
  }

  private takesInstallationToken(app: AppCredentialRow): boolean {
    if (app.access_token === null) return true;
    return (
      app.previous_access_token === null &&
      app.previous_token_until !== null &&
      Number(app.previous_token_until) > this.options.clock.now()
    );
  }

  private holderOf(key: string): Holder | undefined {
    const holder = this.holders.get(key);
    if (holder === undefined) return undefined;
    return holder.until === undefined || holder.until > this.options.clock.now() ? holder : undefined;
  }

  private async fresh(maxAgeMs: number): Promise<void> {
    if (performance.now() - this.loadedAt < maxAgeMs) return;
    this.loading ??= this.load().finally(() => {
      this.loading = undefined;
    });
    await this.loading;
  }

  private async load(): Promise<void> {
    const startedAt = performance.now();
    const rows = await this.options.apps.listAppCredentials();
    const holders = new Map<string, Holder>();
    const apps = new Map<string, AppCredentialRow>();
    for (const row of rows) {
      apps.set(row.app_name, row);
      if (row.access_token !== null) {
        holders.set(sha256(row.access_token).toString('hex'), {
          appId: Number(row.id),
          appName: row.app_name,
        });
      }
      if (row.previous_access_token !== null && row.previous_token_until !== null) {
        holders.set(sha256(row.previous_access_token).toString('hex'), {
          appId: Number(row.id),
          appName: row.app_name,
          until: Number(row.previous_token_until),
        });
      }
    }
    this.holders = holders;
    this.apps = apps;
    this.loadedAt = startedAt;
  }
}

function sha256(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}

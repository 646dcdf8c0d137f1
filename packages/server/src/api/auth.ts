/**
 * Who is calling. Two ways in, both checked on every request but `login` (and the ops probes):
 * - **bearer API tokens** for scripts: `Authorization: Bearer <token>`, looked up by SHA-256; a
 *   token acts with its owner's role and app permissions as they are at each request;
 * - **console sessions**: `login` checks the password (scrypt) and sets an httpOnly,
 *   SameSite=Strict cookie holding a random session id. Sessions are rows of `user_session`
 *   (only the id's SHA-256 is stored), so every node of a cluster knows them and a revocation
 *   (password or role change, user deleted, `logout`) holds on all nodes at once. They expire a
 *   fixed time after login. A session request that changes state must also send the session's
 *   CSRF token in `X-CSRF-Token`; bearer requests need none (a browser never adds an
 *   Authorization header on its own).
 *
 * `login` is rate-limited per (username, client address), with waits that grow, and per client
 * address (login-limiter.ts): a stranger's guesses never hold a user back at another address.
 *
 * Roles are `admin` (every app) and `user` (the apps in its permission list); each resource
 * asks `canAccessApp` before it shows or changes anything of an app.
 *
 * A user whose `mustChangePassword` is set (by an admin's reset, or an importer) gets 403
 * `TW_ERR_PASSWORD_CHANGE_REQUIRED` from every operation but `getCurrentUser`, `changePassword`
 * and `logout` (and `login`, which needs no credentials), with a session or a token alike:
 * `hook` checks it, from the user row each request reads anyway.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hashApiToken, randomSecret } from '../security/api-tokens.js';
import { safeEqual } from '../security/constant-time.js';
import { UNUSABLE_PASSWORD_HASH, verifyPassword } from '../security/passwords.js';
import type { Store, UserRow } from '../store/index.js';
import { ApiError, errorResponses, passwordChangeRequired, unauthenticated } from './errors.js';
import { LoginLimiter, type LoginLimits } from './login-limiter.js';
import { parseAppPermissions, toUser } from './roles.js';
import { LoginBody, LoginResult } from './schemas.js';
import { readSessionCookie, setSessionCookie } from './session-cookie.js';

export { SESSION_COOKIE } from './session-cookie.js';

export const CSRF_HEADER = 'x-csrf-token';
/** Default session lifetime: 12 hours from login. */
export const DEFAULT_SESSION_TTL_MS = 12 * 60 * 60 * 1000;
/** The operations a user who must change their password may still call. */
export const PASSWORD_CHANGE_EXEMPT: ReadonlySet<string> = new Set([
  'login',
  'getCurrentUser',
  'changePassword',
  'logout',
]);
/** A token's `last_used_at` is written at most this often, so scripts do not turn every read into a write. */
const TOKEN_TOUCH_INTERVAL_MS = 60_000;

/** The caller of one request. */
export interface Principal {
  userId: number;
  username: string;
  role: 'admin' | 'user';
  /** The apps a `user` may see and manage; ignored for admins, who may manage every app. */
  appIds: ReadonlySet<number>;
  /** How the request proved who it is. */
  via: 'session' | 'bearer';
  /**
   * The user must change their password before anything else (read with the user's row, which
   * every request reads, so a `changePassword` holds for the same session's next request).
   */
  mustChangePassword: boolean;
  /** The stored hash of the request's session (session requests only): `logout`, `changePassword`. */
  sessionIdHash?: string;
  /** The session's CSRF token (session requests only): `getCurrentUser` returns it to the console after a reload. */
  csrfToken?: string;
}

/**
 * The per-app permission check, the only one: every resource asks it (through
 * `requireAppAccess`, `appFilter` or directly) before it shows or changes anything of an app,
 * whatever id the request names the thing by. Admins pass for every app; users for the apps in
 * their permission list (`updateUser` edits it).
 */
export function canAccessApp(principal: Principal, appId: number): boolean {
  return principal.role === 'admin' || principal.appIds.has(appId);
}

export interface AuthOptions {
  store: Store;
  /** The clock sessions expire by. */
  now: () => number;
  /** How long a session lasts after login. Default 12 hours. */
  sessionTtlMs?: number;
  /** Failed sign-ins allowed per (username, address) and per address. Defaults in login-limiter.ts. */
  loginLimits?: Partial<LoginLimits>;
}

/** A session `login` opened. */
export interface OpenedSession {
  id: string;
  csrfToken: string;
  expiresAt: number;
  user: UserRow;
}

/**
 * Authentication for one server: the console sessions and the checks of both kinds of
 * credential. Shared by the REST API and the ops endpoints (`/metrics`).
 *
 * @example
 * const auth = new Auth({ store, now: () => clock.now() });
 * registerRestApi(app, { store, auth, ... });
 * registerOps(app, { auth, ... });
 */
export class Auth {
  private readonly store: Store;
  private readonly now: () => number;
  private readonly sessionTtlMs: number;
  private readonly limiter: LoginLimiter;
  private readonly tokenTouchedAt = new Map<number, number>();
  private readonly principals = new WeakMap<FastifyRequest, Principal>();

  constructor(options: AuthOptions) {
    this.store = options.store;
    this.now = options.now;
    this.sessionTtlMs = options.sessionTtlMs ?? DEFAULT_SESSION_TTL_MS;
    this.limiter = new LoginLimiter(options.now, options.loginLimits);
  }

  /**
   * Checks a username and password; opens a session when they match. `address` is the client's
   * (the per-address limit); leave it out only where no client is involved.
   *
   * @throws ApiError 429 `TW_ERR_RATE_LIMITED` (with `retryAfterSeconds`) while the username or
   * the address has had too many failures; the password is then not checked at all.
   */
  async login(username: string, password: string, address = ''): Promise<OpenedSession | undefined> {
    const waitMs = this.limiter.retryAfterMs(username, address);
    if (waitMs > 0) throw new LoginRateLimited(waitMs);
    const user = await this.store.users.findUserByName(username);
    // An unknown user costs the same scrypt as a known one, so timing does not tell which names exist.
    const matches = await verifyPassword(password, user?.password_hash ?? UNUSABLE_PASSWORD_HASH);
    if (user === undefined || !matches) {
      this.limiter.recordFailure(username, address);
      return undefined;
    }
    this.limiter.recordSuccess(username, address);
    const now = this.now();
    await this.store.sessions.deleteExpiredSessions(now);
    const id = randomSecret(32);
    const csrfToken = randomSecret(32);
    const expiresAt = now + this.sessionTtlMs;
    await this.store.sessions.createSession(
      { idHash: hashSessionId(id), userId: user.id, csrfToken, expiresAt },
      now,
    );
    return { id, csrfToken, expiresAt, user };
  }

  /**
   * Checks a signed-in user's own password (`changePassword`), counted against the same limits
   * as a sign-in, so a stolen session cannot be used to guess the password either.
   *
   * @throws ApiError 429 `TW_ERR_RATE_LIMITED` as `login` does.
   */
  async confirmPassword(user: UserRow, password: string, address: string): Promise<boolean> {
    const waitMs = this.limiter.retryAfterMs(user.username, address);
    if (waitMs > 0) throw new LoginRateLimited(waitMs);
    const matches = await verifyPassword(password, user.password_hash);
    if (!matches) this.limiter.recordFailure(user.username, address);
    return matches;
  }

  /** Ends the session of the request, when it came with one (its cookie no longer works). */
  async logout(principal: Principal): Promise<void> {
    if (principal.sessionIdHash !== undefined)
      await this.store.sessions.deleteSession(principal.sessionIdHash);
  }

  /**
   * Who made the request, from its bearer token or its session cookie (with the CSRF check for
   * a state-changing session request). Remembered for `principalOf`.
   *
   * @throws ApiError 401 without valid credentials; 403 `TW_ERR_CSRF` for a session request
   * that changes state without the session's CSRF token.
   */
  async authenticate(request: FastifyRequest): Promise<Principal> {
    const principal = await this.identify(request);
    this.principals.set(request, principal);
    return principal;
  }

  /** The caller `authenticate` found for this request. */
  principalOf(request: FastifyRequest): Principal {
    const principal = this.principals.get(request);
    if (principal === undefined) throw unauthenticated('this request was not authenticated');
    return principal;
  }

  /**
   * A Fastify `onRequest` hook that authenticates every request of the context it is added to,
   * and refuses those of a user who must change their password (but `PASSWORD_CHANGE_EXEMPT`).
   *
   * @throws ApiError 403 `TW_ERR_PASSWORD_CHANGE_REQUIRED` for such a user's other requests.
   */
  readonly hook = async (request: FastifyRequest): Promise<void> => {
    const principal = await this.authenticate(request);
    if (principal.mustChangePassword && !PASSWORD_CHANGE_EXEMPT.has(operationIdOf(request))) {
      throw passwordChangeRequired(principal.username);
    }
  };

  private async identify(request: FastifyRequest): Promise<Principal> {
    const authorization = request.headers.authorization;
    if (authorization !== undefined) return this.identifyBearer(authorization);
    const sessionId = readSessionCookie(request);
    if (sessionId === undefined) {
      throw unauthenticated('sign in (POST /api/v1/login) or send Authorization: Bearer <token>');
    }
    return this.identifySession(sessionId, request);
  }

  private async identifyBearer(authorization: string): Promise<Principal> {
    const match = /^Bearer[ \t]+([\x21-\x7e]+)[ \t]*$/i.exec(authorization);
    if (match === null) throw unauthenticated('the Authorization header must be Bearer <token>');
    const token = await this.store.users.findApiTokenByHash(hashApiToken(match[1]!));
    if (token === undefined) throw unauthenticated('the bearer token is not valid');
    const user = await this.store.users.findUserById(token.user_id);
    if (user === undefined) throw unauthenticated('the bearer token is not valid');
    await this.touchToken(token.id);
    return principalFrom(user, 'bearer');
  }

  private async identifySession(sessionId: string, request: FastifyRequest): Promise<Principal> {
    const idHash = hashSessionId(sessionId);
    const session = await this.store.sessions.findSession(idHash);
    // Sessions are rows, so one revoked (password or role changed, user deleted) on any node is gone here too.
    const user = session === undefined ? undefined : await this.store.users.findUserById(session.user_id);
    if (session === undefined || user === undefined || session.expires_at <= this.now()) {
      if (session !== undefined) await this.store.sessions.deleteSession(idHash);
      throw unauthenticated('the session has expired or does not exist; sign in again');
    }
    if (changesState(request.method)) {
      const sent = request.headers[CSRF_HEADER];
      if (typeof sent !== 'string' || !safeEqual(sent, session.csrf_token)) {
        throw new ApiError(
          'TW_ERR_CSRF',
          `a request made with the session cookie that changes state must send the session's CSRF token in ${CSRF_HEADER}`,
        );
      }
    }
    return { ...principalFrom(user, 'session'), sessionIdHash: idHash, csrfToken: session.csrf_token };
  }

  private async touchToken(tokenId: number): Promise<void> {
    const now = this.now();
    const last = this.tokenTouchedAt.get(tokenId);
    if (last !== undefined && now - last < TOKEN_TOUCH_INTERVAL_MS) return;
    this.tokenTouchedAt.set(tokenId, now);
    await this.store.users.touchApiToken(tokenId, now);
  }
}

/** `login` refused before checking the password: too many recent failures. */
export class LoginRateLimited extends ApiError {
  /** Whole seconds to wait, for the Retry-After header. */
  readonly retryAfterSeconds: number;

  constructor(waitMs: number) {
    const seconds = Math.max(1, Math.ceil(waitMs / 1000));
    super('TW_ERR_RATE_LIMITED', `too many failed sign-ins; try again in ${inMinutes(seconds)}`);
    this.name = 'LoginRateLimited';
    this.retryAfterSeconds = seconds;
  }
}

/** `1 minute`, `15 minutes`: a wait rounded up to whole minutes, as people read it. */
function inMinutes(seconds: number): string {
  const minutes = Math.ceil(seconds / 60);
  return minutes === 1 ? '1 minute' : `${minutes} minutes`;
}

/** Runs `work`; when it is refused by the login limit, the answer says when to retry (Retry-After). */
export async function withRetryAfter<T>(reply: FastifyReply, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof LoginRateLimited) reply.header('retry-after', String(err.retryAfterSeconds));
    throw err;
  }
}

/** The stored form of a session id: its SHA-256, as for API tokens (the id is 256 random bits). */
function hashSessionId(sessionId: string): string {
  return hashApiToken(sessionId);
}

/** Registers `POST /login`, the one operation that needs no credentials. */
export function registerLogin(api: FastifyInstance, auth: Auth): void {
  api.post<{ Body: LoginBody }>(
    '/login',
    {
      schema: {
        operationId: 'login',
        tags: ['auth'],
        summary:
          'Sign in to the console: sets the session cookie and returns its CSRF token. Rate-limited per username and address, with growing waits, and per address (429 with Retry-After).',
        security: [],
        body: LoginBody,
        response: { 200: LoginResult, ...errorResponses(400, 429) },
      },
    },
    async (request, reply) => {
      const session = await withRetryAfter(reply, () =>
        auth.login(request.body.username, request.body.password, request.ip),
      );
      if (session === undefined) throw new ApiError('TW_ERR_LOGIN_FAILED', 'wrong username or password');
      setSessionCookie(request, reply, session.id, session.expiresAt);
      return { user: toUser(session.user), csrfToken: session.csrfToken, expiresAt: session.expiresAt };
    },
  );
}

function changesState(method: string): boolean {
  return method !== 'GET' && method !== 'HEAD' && method !== 'OPTIONS';
}

function principalFrom(user: UserRow, via: Principal['via']): Principal {
  const appIds = new Set(parseAppPermissions(user.app_permissions));
  const mustChangePassword = Number(user.must_change_password) !== 0;
  return { userId: user.id, username: user.username, role: user.role, appIds, via, mustChangePassword };
}

/** The operationId of the request's route (empty for a route without one, such as `/metrics`). */
function operationIdOf(request: FastifyRequest): string {
  const schema = request.routeOptions.schema as { operationId?: unknown } | undefined;
  return typeof schema?.operationId === 'string' ? schema.operationId : '';
}

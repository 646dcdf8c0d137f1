/**
 * Who is calling. Two ways in, both checked on every request but `login` (and the ops probes):
 * - **bearer API tokens** for scripts: `Authorization: Bearer <token>`, looked up by SHA-256;
 * - **console sessions**: `login` checks the password (scrypt) and sets an httpOnly,
 *   SameSite=Strict cookie holding a random session id. Sessions live in this process's memory:
 *   they do not survive a restart, and behind a load balancer each node knows only its own
 *   (use sticky sessions, or bearer tokens). A session request that changes state must also
 *   send the session's CSRF token in `X-CSRF-Token`; bearer requests need none (a browser never
 *   adds an Authorization header on its own).
 *
 * Roles are `admin` (every app) and `user` (the apps in its permission list); each resource
 * asks `canAccessApp` before it shows or changes anything of an app.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { hashApiToken, randomSecret } from '../security/api-tokens.js';
import { safeEqual } from '../security/constant-time.js';
import { UNUSABLE_PASSWORD_HASH, verifyPassword } from '../security/passwords.js';
import type { Store, UserRow } from '../store/index.js';
import { ApiError, errorResponses, unauthenticated } from './errors.js';
import { LoginBody, LoginResult } from './schemas.js';
import { readSessionCookie, setSessionCookie } from './session-cookie.js';

export { SESSION_COOKIE } from './session-cookie.js';

export const CSRF_HEADER = 'x-csrf-token';
/** Default session lifetime: 12 hours from login. */
export const DEFAULT_SESSION_TTL_MS = 12 * 60 * 60 * 1000;
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
}

/**
 * The per-app permission check every resource makes. Admins pass for every app; users for the
 * apps in their permission list (the users-and-roles issue brings the screens to edit it).
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
}

interface Session {
  userId: number;
  csrfToken: string;
  expiresAt: number;
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
  private readonly sessions = new Map<string, Session>();
  private readonly tokenTouchedAt = new Map<number, number>();
  private readonly principals = new WeakMap<FastifyRequest, Principal>();

  constructor(options: AuthOptions) {
    this.store = options.store;
    this.now = options.now;
    this.sessionTtlMs = options.sessionTtlMs ?? DEFAULT_SESSION_TTL_MS;
  }

  /** Checks a username and password; opens a session when they match. */
  async login(username: string, password: string): Promise<OpenedSession | undefined> {
    const user = await this.store.users.findUserByName(username);
    // An unknown user costs the same scrypt as a known one, so timing does not tell which names exist.
    const matches = await verifyPassword(password, user?.password_hash ?? UNUSABLE_PASSWORD_HASH);
    if (user === undefined || !matches) return undefined;
    this.dropExpiredSessions();
    const session: Session = {
      userId: user.id,
      csrfToken: randomSecret(32),
      expiresAt: this.now() + this.sessionTtlMs,
    };
    const id = randomSecret(32);
    this.sessions.set(id, session);
    return { id, csrfToken: session.csrfToken, expiresAt: session.expiresAt, user };
  }

  /** Ends a session (its cookie no longer works). */
  logout(sessionId: string): void {
    this.sessions.delete(sessionId);
  }

  /** Open sessions (for tests and diagnostics). */
  sessionCount(): number {
    this.dropExpiredSessions();
    return this.sessions.size;
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

  /** A Fastify `onRequest` hook that authenticates every request of the context it is added to. */
  readonly hook = async (request: FastifyRequest): Promise<void> => {
    await this.authenticate(request);
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
    const session = this.sessions.get(sessionId);
    if (session === undefined || session.expiresAt <= this.now()) {
      this.sessions.delete(sessionId);
      throw unauthenticated('the session has expired or does not exist; sign in again');
    }
    const user = await this.store.users.findUserById(session.userId);
    if (user === undefined) {
      this.sessions.delete(sessionId);
      throw unauthenticated('the session has expired or does not exist; sign in again');
    }
    if (changesState(request.method)) {
      const sent = request.headers[CSRF_HEADER];
      if (typeof sent !== 'string' || !safeEqual(sent, session.csrfToken)) {
        throw new ApiError(
          403,
          'TW_ERR_CSRF',
          `a request made with the session cookie that changes state must send the session's CSRF token in ${CSRF_HEADER}`,
        );
      }
    }
    return principalFrom(user, 'session');
  }

  private async touchToken(tokenId: number): Promise<void> {
    const now = this.now();
    const last = this.tokenTouchedAt.get(tokenId);
    if (last !== undefined && now - last < TOKEN_TOUCH_INTERVAL_MS) return;
    this.tokenTouchedAt.set(tokenId, now);
    await this.store.users.touchApiToken(tokenId, now);
  }

  private dropExpiredSessions(): void {
    const now = this.now();
    for (const [id, session] of this.sessions) if (session.expiresAt <= now) this.sessions.delete(id);
  }
}

/** Registers `POST /login`, the one operation that needs no credentials. */
export function registerLogin(api: FastifyInstance, auth: Auth): void {
  api.post<{ Body: LoginBody }>(
    '/login',
    {
      schema: {
        operationId: 'login',
        tags: ['auth'],
        summary: 'Sign in to the console: sets the session cookie and returns its CSRF token',
        security: [],
        body: LoginBody,
        response: { 200: LoginResult, ...errorResponses(400) },
      },
    },
    async (request, reply) => {
      const session = await auth.login(request.body.username, request.body.password);
      if (session === undefined) throw new ApiError(401, 'TW_ERR_LOGIN_FAILED', 'wrong username or password');
      setSessionCookie(request, reply, session.id, session.expiresAt);
      return {
        user: { id: session.user.id, username: session.user.username, role: session.user.role },
        csrfToken: session.csrfToken,
        expiresAt: session.expiresAt,
      };
    },
  );
}

function changesState(method: string): boolean {
  return method !== 'GET' && method !== 'HEAD' && method !== 'OPTIONS';
}

function principalFrom(user: UserRow, via: Principal['via']): Principal {
  const appIds = new Set(
    user.app_permissions
      .split(',')
      .map((s) => Number(s.trim()))
      .filter((n) => Number.isInteger(n) && n > 0),
  );
  return { userId: user.id, username: user.username, role: user.role, appIds, via };
}

/**
 * Who is signed in. On load the console asks `getCurrentUser` (the session cookie is httpOnly);
 * a 401 from any request drops the user and the router shows the sign-in page. A user who must
 * change their password (`mustChangePassword`, or any call refused with
 * TW_ERR_PASSWORD_CHANGE_REQUIRED) is shown the change-password form instead of the console.
 */
import { useQueryClient } from '@tanstack/react-query';
import { createContext, type ReactNode, useCallback, useContext, useEffect, useMemo, useState } from 'react';
import {
  ApiError,
  call,
  client,
  setCsrfToken,
  setPasswordChangeRequiredHandler,
  setUnauthenticatedHandler,
} from '../api/client';
import type { CurrentUser } from '../api/types';

interface AuthState {
  /** undefined while the first `getCurrentUser` runs; null when nobody is signed in. */
  user: CurrentUser | null | undefined;
  login(username: string, password: string): Promise<void>;
  logout(): Promise<void>;
  /** Reads `getCurrentUser` again (after the password changed). */
  refresh(): Promise<void>;
  isAdmin: boolean;
}

/**
 * `getCurrentUser`: the answer index.html asked for before the app's code loaded (once), else a
 * new request.
 */
async function currentUser(): Promise<CurrentUser> {
  const early = (window as { __tickwheelMe?: Promise<Response> }).__tickwheelMe;
  (window as { __tickwheelMe?: Promise<Response> }).__tickwheelMe = undefined;
  // The early answer goes through the client as if it fetched it, so it is read the same way.
  return call(client.GET('/api/v1/me', early === undefined ? undefined : { fetch: () => early }));
}

const AuthContext = createContext<AuthState | undefined>(undefined);

export function AuthProvider({ children }: { children: ReactNode }) {
  const [user, setUser] = useState<CurrentUser | null | undefined>(undefined);
  const queryClient = useQueryClient();

  const signedOut = useCallback(() => {
    setCsrfToken(undefined);
    setUser(null);
    queryClient.clear();
  }, [queryClient]);

  const passwordChangeRequired = useCallback(() => {
    setUser((before) => (before ? { ...before, mustChangePassword: true } : before));
  }, []);

  useEffect(() => {
    setPasswordChangeRequiredHandler(passwordChangeRequired);
    return () => setPasswordChangeRequiredHandler(undefined);
  }, [passwordChangeRequired]);

  useEffect(() => {
    setUnauthenticatedHandler(signedOut);
    let cancelled = false;
    currentUser()
      .then((me) => {
        if (cancelled) return;
        setCsrfToken(me.csrfToken);
        setUser(me);
      })
      .catch((err: unknown) => {
        if (cancelled) return;
        // Signed out (401) or the server unreachable: the sign-in page says what happens next.
        if (!(err instanceof ApiError && err.status === 401)) console.warn('getCurrentUser failed', err);
        setUser(null);
      });
    return () => {
      cancelled = true;
      setUnauthenticatedHandler(undefined);
    };
  }, [signedOut]);

  const login = useCallback(async (username: string, password: string) => {
    const session = await call(client.POST('/api/v1/login', { body: { username, password } }));
    setCsrfToken(session.csrfToken);
    setUser({ ...session.user, csrfToken: session.csrfToken });
  }, []);

  const refresh = useCallback(async () => {
    const me = await call(client.GET('/api/v1/me'));
    setCsrfToken(me.csrfToken);
    // Pages refused while the password had to change ask again when they show.
    queryClient.clear();
    setUser(me);
  }, [queryClient]);

  const logout = useCallback(async () => {
    try {
      await call(client.POST('/api/v1/logout'));
    } finally {
      signedOut();
    }
  }, [signedOut]);

  const value = useMemo<AuthState>(
    () => ({ user, login, logout, refresh, isAdmin: user?.role === 'ADMIN' }),
    [user, login, logout, refresh],
  );
  return <AuthContext.Provider value={value}>{children}</AuthContext.Provider>;
}

export function useAuth(): AuthState {
  const state = useContext(AuthContext);
  if (state === undefined) throw new Error('useAuth outside AuthProvider');
  return state;
}

/**
 * Who is signed in. On load the console asks `getCurrentUser` (the session cookie is httpOnly);
 * a 401 from any request drops the user and the router shows the sign-in page.
 */
import { useQueryClient } from '@tanstack/react-query';
import { createContext, type ReactNode, useCallback, useContext, useEffect, useMemo, useState } from 'react';
import { ApiError, call, client, setCsrfToken, setUnauthenticatedHandler } from '../api/client';
import type { CurrentUser } from '../api/types';

interface AuthState {
  /** undefined while the first `getCurrentUser` runs; null when nobody is signed in. */
  user: CurrentUser | null | undefined;
  login(username: string, password: string): Promise<void>;
  logout(): Promise<void>;
  isAdmin: boolean;
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

  useEffect(() => {
    setUnauthenticatedHandler(signedOut);
    let cancelled = false;
    call(client.GET('/api/v1/me'))
      .then((me) => {
        if (cancelled) return;
        setCsrfToken(me.csrfToken);
        setUser(me);
      })
      .catch((err: unknown) => {
        if (cancelled) return;
        if (err instanceof ApiError && err.status === 401) setUser(null);
        else setUser(null);
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

  const logout = useCallback(async () => {
    try {
      await call(client.POST('/api/v1/logout'));
    } finally {
      signedOut();
    }
  }, [signedOut]);

  const value = useMemo<AuthState>(
    () => ({ user, login, logout, isAdmin: user?.role === 'ADMIN' }),
    [user, login, logout],
  );
  return <AuthContext.Provider value={value}>{children}</AuthContext.Provider>;
}

export function useAuth(): AuthState {
  const state = useContext(AuthContext);
  if (state === undefined) throw new Error('useAuth outside AuthProvider');
  return state;
}

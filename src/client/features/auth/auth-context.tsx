import { createContext, type ReactNode, useContext, useSyncExternalStore } from "react";
import type { AuthStore } from "./auth-store";
import type { AuthStatus, LoginInput, RegisterInput, User } from "./types";

const AuthContext = createContext<AuthStore | null>(null);

/** Provides the auth store to `useAuth()`. Mounted once in main.tsx. */
export function AuthProvider({ store, children }: { store: AuthStore; children: ReactNode }) {
  return <AuthContext.Provider value={store}>{children}</AuthContext.Provider>;
}

export interface UseAuth {
  status: AuthStatus;
  user: User | null;
  isAuthenticated: boolean;
  login(input: LoginInput): Promise<User>;
  register(input: RegisterInput): Promise<User>;
  logout(): Promise<void>;
  setUser(user: User | null): void;
}

/** The session, re-rendering on change: `{ status, user, isAuthenticated, login, register, logout, setUser }`. */
export function useAuth(): UseAuth {
  const store = useContext(AuthContext);
  if (!store) throw new Error("useAuth must be used inside <AuthProvider>");
  const { status, user } = useSyncExternalStore(store.subscribe, store.getSnapshot);
  return {
    status,
    user,
    isAuthenticated: user !== null,
    login: store.login,
    register: store.register,
    logout: store.logout,
    setUser: store.setUser,
  };
}

/** The signed-in user; only for components under the protected layout (throws when signed out). */
export function useCurrentUser(): User {
  const { user } = useAuth();
  if (!user) throw new Error("useCurrentUser used outside the protected layout");
  return user;
}

import type { TRPCClient } from "@trpc/client";
import { applyTheme, hasStoredTheme, isThemeId } from "@/client/themes";
import type { AppRouter } from "@/server/trpc/router";
import type { AuthStatus, LoginInput, RegisterInput, User } from "./types";

/**
 * The session, held outside React so the router's `beforeLoad` guards always read the current value
 * (router context `auth`), and React reads it through `useAuth()` (useSyncExternalStore).
 */
export interface AuthStore {
  readonly status: AuthStatus;
  readonly user: User | null;
  readonly isAuthenticated: boolean;
  subscribe(listener: () => void): () => void;
  getSnapshot(): AuthSnapshot;
  /** tRPC `auth.me`; UNAUTHORIZED (or any failure) means signed out. Resolves once the status is known. */
  load(): Promise<void>;
  /**
   * tRPC `auth.login`; throws the TRPCClientError (show it with `errorMessage(err, 'Login failed')`).
   * Adopts the server's theme.
   */
  login(input: LoginInput): Promise<User>;
  /** tRPC `auth.register`; throws the TRPCClientError (shown with fallback 'Registration failed'). */
  register(input: RegisterInput): Promise<User>;
  /** tRPC `auth.logout`, then clears the user even when the call fails. */
  logout(): Promise<void>;
  /** Replaces the user after a profile or settings update. */
  setUser(user: User | null): void;
}

export interface AuthSnapshot {
  status: AuthStatus;
  user: User | null;
}

/** The store over the app's tRPC client (`createTrpcClient()`), created once in main.tsx. */
export function createAuthStore(trpc: TRPCClient<AppRouter>): AuthStore {
  let snapshot: AuthSnapshot = { status: "loading", user: null };
  const listeners = new Set<() => void>();
  let loading: Promise<void> | null = null;

  const set = (user: User | null) => {
    snapshot = { status: user ? "authenticated" : "unauthenticated", user };
    for (const listener of listeners) listener();
  };

  const adoptTheme = (user: User, force: boolean) => {
    if (isThemeId(user.theme) && (force || !hasStoredTheme())) applyTheme(user.theme);
  };

  return {
    get status() {
      return snapshot.status;
    },
    get user() {
      return snapshot.user;
    },
    get isAuthenticated() {
      return snapshot.user !== null;
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    getSnapshot: () => snapshot,
    load() {
      loading ??= trpc.auth.me
        .query()
        .then((res) => {
          // The theme saved in this browser wins on start (spec section 2); the server's fills a gap.
          if (res.user) adoptTheme(res.user, false);
          set(res.user ?? null);
        })
        .catch(() => set(null));
      return loading;
    },
    async login(input) {
      const res = await trpc.auth.login.mutate(input);
      adoptTheme(res.user, true);
      set(res.user);
      return res.user;
    },
    async register(input) {
      const res = await trpc.auth.register.mutate(input);
      set(res.user);
      return res.user;
    },
    async logout() {
      try {
        await trpc.auth.logout.mutate();
      } finally {
        set(null);
      }
    },
    setUser: set,
  };
}

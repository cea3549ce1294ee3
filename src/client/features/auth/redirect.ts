/** Where to send a signed-in user by default. */
export const DEFAULT_AFTER_LOGIN = "/dashboard";

/**
 * A same-origin path to return to after login (the `redirect` search param set by the protected layout),
 * or /dashboard. Rejects absolute and protocol-relative URLs and the auth pages themselves.
 */
export function safeRedirect(value: unknown): string {
  if (
    typeof value !== "string" ||
    !value.startsWith("/") ||
    value.startsWith("//") ||
    value.startsWith("/\\")
  ) {
    return DEFAULT_AFTER_LOGIN;
  }
  const path = value.split(/[?#]/)[0];
  if (path === "/" || path === "/login" || path === "/register") return DEFAULT_AFTER_LOGIN;
  return value;
}

/** Search params of /login and /register: `?redirect=/contacts/42`. */
export interface AuthSearch {
  redirect?: string;
}

/** validateSearch for /login and /register. */
export function validateAuthSearch(search: Record<string, unknown>): AuthSearch {
  return typeof search.redirect === "string" && search.redirect ? { redirect: search.redirect } : {};
}

/** Where to send a signed-in user by default. */
export const DEFAULT_AFTER_LOGIN = "/dashboard";

/**
 * A same-origin path to return to after login (the `redirect` search param set by the protected layout),
 * or /dashboard. Rejects absolute and protocol-relative URLs and the auth pages themselves, and any
 * value holding a control character: the URL parser drops tab, LF and CR wherever they are, so
 * `/\t/evil.example` is `//evil.example` (the router then refused it and a signed-in user opening
 * `/login?redirect=/%09/evil.example` got an error page instead of the dashboard).
 */
export function safeRedirect(value: unknown): string {
  if (
    typeof value !== "string" ||
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
    /[\u0000-\u001f\u007f]/.test(value) ||
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

/**
 * Search params of /login and /register: `?redirect=/contacts/42`; `?deleted=account` after Settings >
 * Profile > Delete account (the sign-in page then says the account was deleted).
 */
export interface AuthSearch {
  redirect?: string;
  deleted?: "account";
}

/** validateSearch for /login and /register. */
export function validateAuthSearch(search: Record<string, unknown>): AuthSearch {
  return {
    ...(typeof search.redirect === "string" && search.redirect ? { redirect: search.redirect } : {}),
    ...(search.deleted === "account" ? { deleted: "account" as const } : {}),
  };
}

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { accountLinkToken, createTestApp, signUp, type TestApp, trpcCall } from "../helpers";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());

const RESET_LINK_INVALID =
  "This password reset link is invalid, already used or expired. Please request a new one.";

/**
 * A password reset link sent before the owner changed the password in Settings must stop working:
 * the owner who changes the password (e.g. after a suspected compromise, which also ends every other
 * session) would otherwise leave a link in the mailbox that sets another password and signs in,
 * ending the owner's session, for the rest of its hour.
 */
describe("changing the password retires the account's unused reset links", () => {
  for (const via of ["REST", "tRPC"] as const) {
    it(`a reset link asked for before a password change (${via}) is refused after it`, async () => {
      const { user, client, password } = await signUp(t.app);
      const asked = await t.app.inject({
        method: "POST",
        url: "/api/auth/forgot-password",
        payload: { email: user.email },
      });
      expect(asked.statusCode).toBe(200);
      const token = await accountLinkToken(t.app, user.email, "reset-password");
      expect(token).toMatch(/^[a-z2-7]{32}$/);

      const change = { currentPassword: password, newPassword: "owner-chose-this-one" };
      if (via === "REST") {
        const res = await client.inject({ method: "PUT", url: "/api/user/password", payload: change });
        expect(res.statusCode, res.body).toBe(200);
      } else {
        const res = await trpcCall(client, "user.changePassword", change);
        expect(res.status, JSON.stringify(res.error)).toBe(200);
      }

      const reset = await t.app.inject({
        method: "POST",
        url: "/api/auth/reset-password",
        payload: { token, password: "someone-elses-choice" },
      });
      expect(reset.statusCode, reset.body).toBe(400);
      expect(reset.json().error).toBe(RESET_LINK_INVALID);
      // the owner's session and new password still work; the link's password was never set
      expect((await client.get("/api/auth/me")).statusCode).toBe(200);
      const login = (p: string) =>
        t.app.inject({ method: "POST", url: "/api/auth/login", payload: { email: user.email, password: p } });
      expect((await login("someone-elses-choice")).statusCode).toBe(401);
      expect((await login("owner-chose-this-one")).statusCode).toBe(200);
    });
  }

  it("a link asked for after the change still works", async () => {
    const { user, client, password } = await signUp(t.app);
    const res = await client.inject({
      method: "PUT",
      url: "/api/user/password",
      payload: { currentPassword: password, newPassword: "owner-chose-this-one" },
    });
    expect(res.statusCode).toBe(200);
    await t.app.inject({ method: "POST", url: "/api/auth/forgot-password", payload: { email: user.email } });
    const token = await accountLinkToken(t.app, user.email, "reset-password");
    const reset = await t.app.inject({
      method: "POST",
      url: "/api/auth/reset-password",
      payload: { token, password: "a-later-reset-password" },
    });
    expect(reset.statusCode, reset.body).toBe(200);
  });
});

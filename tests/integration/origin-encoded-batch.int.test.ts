import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp, uniqueEmail } from "../helpers";

// The login-CSRF Origin check (http/origin.ts) read a tRPC batch path by splitting on "," and then
// decoding each piece, while tRPC decodes the path first and then splits: `auth.login%2Cauth.login`
// was no account procedure to the check but two auth.login calls to tRPC, so a cross-site form
// reached the login code. The check now reads the path as the router and tRPC do.

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());

const crossSite = (url: string, payload: unknown) =>
  t.app.inject({
    method: "POST",
    url,
    payload: payload as object,
    headers: { origin: "https://evil.example", "content-type": "application/json" },
  });

const creds = () => ({ json: { email: uniqueEmail("csrf"), password: "wrong-password" } });

describe("Origin check of tRPC account procedures", () => {
  it("refuses a cross-site batch of auth.login however the comma is written", async () => {
    for (const path of [
      "auth.login,auth.login",
      "auth.login%2Cauth.login",
      "auth.login%2cauth.login",
      "auth.login%252Cauth.login",
      "auth%2Elogin",
    ]) {
      const res = await crossSite(`/trpc/${path}?batch=1`, { 0: creds(), 1: creds() });
      expect(res.statusCode, `${path}: ${res.body}`).toBe(403);
      expect(res.body, path).toContain("Cross-site request refused");
    }
    // not batched, encoded dot
    const single = await crossSite("/trpc/auth%2Elogin", creds());
    expect(single.statusCode, single.body).toBe(403);
  });

  it("refuses a cross-site REST login whose path is percent-encoded", async () => {
    const res = await t.app.inject({
      method: "POST",
      url: "/api/auth/%6Cogin",
      payload: { email: uniqueEmail("csrf"), password: "wrong-password" },
      headers: { origin: "https://evil.example" },
    });
    expect(res.statusCode, res.body).toBe(403);
  });

  it("still lets a same-site or header-less batch through to the login code (401 for a wrong password)", async () => {
    const res = await t.app.inject({
      method: "POST",
      url: "/trpc/auth.login%2Cauth.login?batch=1",
      payload: { 0: creds(), 1: creds() },
      headers: { origin: "http://localhost:80" },
    });
    expect(res.statusCode, res.body).toBe(401);
  });
});

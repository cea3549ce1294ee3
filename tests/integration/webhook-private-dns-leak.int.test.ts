import dns from "node:dns";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createTestApp, setPlan, signUp, type TestApp } from "../helpers";

// An outbound URL whose name resolves to a private address is refused (the SSRF guard), but the
// refusal named the address: "intranet.example.com resolves to a non-public address (10.20.30.40)",
// shown to the tenant as the webhook delivery's last_error (and as a lead enrichment's skip reason).
// A tenant registering names like metadata.google.internal or db.internal read this network's
// internal DNS back through the deliveries log. The name below resolves, for this process only, to a
// private address (the resolver is replaced for it; every other name resolves for real).

const INTERNAL = "intranet.example.com";
const PRIVATE_IP = "10.20.30.40";
vi.mock("node:dns/promises", async (importOriginal) => {
  const real = await importOriginal<typeof import("node:dns/promises")>();
  const lookup = (async (host: string, options?: unknown) =>
    host === "intranet.example.com"
      ? [{ address: "10.20.30.40", family: 4 }]
      : real.lookup(host, options as never)) as typeof real.lookup;
  return { ...real, default: { ...real, lookup }, lookup };
});
const { assertPublicUrl } = await import("../../src/server/lib/outbound");

let t: TestApp;
const realLookup = dns.lookup;
beforeAll(async () => {
  t = await createTestApp();
  // the socket's own lookup (lib/outbound guardedLookup reads dns.lookup when it connects)
  vi.spyOn(dns, "lookup").mockImplementation(((host: string, options: unknown, callback: unknown) => {
    const cb = (typeof options === "function" ? options : callback) as (...a: unknown[]) => void;
    if (host !== INTERNAL) return (realLookup as (...a: unknown[]) => void)(host, options, callback);
    const all = typeof options === "object" && (options as dns.LookupOptions)?.all;
    process.nextTick(() => (all ? cb(null, [{ address: PRIVATE_IP, family: 4 }]) : cb(null, PRIVATE_IP, 4)));
  }) as typeof dns.lookup);
});
afterAll(async () => {
  vi.restoreAllMocks();
  await t?.close();
});

describe("refusing a name that resolves to a private address", () => {
  it("does not tell the tenant the address, in a webhook delivery's last_error", async () => {
    const u = await signUp(t.app);
    await setPlan(t, u.user.id, "business");
    const ep = await u.client.post("/api/webhook-endpoints", {
      url: `https://${INTERNAL}/hooks`,
      events: ["contact.created"],
    });
    expect(ep.statusCode, ep.body).toBe(200);
    const id = ep.json().endpoint.id as string;
    expect((await u.client.post(`/api/webhook-endpoints/${id}/test`)).statusCode).toBe(200);
    const [d] = (await u.client.get(`/api/webhook-endpoints/${id}/deliveries`)).json().deliveries as {
      status: string;
      last_error: string;
    }[];
    expect(d!.status).toBe("failed");
    expect(d!.last_error).toMatch(new RegExp(`${INTERNAL} resolves to a non-public address`));
    expect(d!.last_error).not.toContain(PRIVATE_IP);
  });

  it("does not tell it in the URL check before a fetch (lead website enrichment)", async () => {
    const err = await assertPublicUrl(`https://${INTERNAL}/`).catch((e: Error) => e);
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).message).toMatch(/non-public address/);
    expect((err as Error).message).not.toContain(PRIVATE_IP);
  });
});

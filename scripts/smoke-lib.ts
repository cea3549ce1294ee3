/**
 * A person's first steps against a running Pitchwise over plain HTTP (the documented REST paths),
 * shared by scripts/smoke.ts (the built server, scripts/smoke-build.sh) and the graceful-shutdown
 * test: register, import a CSV through the streaming upload, send an email campaign through the
 * local provider and wait for it. Each step throws an Error with the server's answer when it fails.
 */

import type { Sql } from "postgres";

/** Waits `ms` milliseconds. */
export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A CSV of `n` contacts (first_name, last_name, email, phone) with addresses at example.com. */
export function contactsCsv(n: number, tag = "smoke"): string {
  const rows = ["first_name,last_name,email,phone"];
  for (let i = 1; i <= n; i++)
    rows.push(`Person${i},${tag},${tag}-${i}@example.com,+1415555${String(i).padStart(4, "0")}`);
  return `${rows.join("\n")}\n`;
}

/** One signed-in person: a session cookie and the Origin the CSRF check expects. */
export class SmokeClient {
  private cookie = "";
  constructor(readonly baseUrl: string) {}

  /**
   * A request with the session cookie and this site's Origin; JSON bodies are serialised.
   * @returns the parsed JSON body (or text) and the status
   * @throws Error when the status is not 2xx, with method, path, status and body
   */
  async call<T = Record<string, unknown>>(
    method: string,
    path: string,
    body?: unknown,
  ): Promise<{ status: number; body: T }> {
    const headers: Record<string, string> = { origin: new URL(this.baseUrl).origin };
    if (this.cookie) headers.cookie = this.cookie;
    let payload: BodyInit | undefined;
    if (body instanceof FormData) payload = body;
    else if (body !== undefined) {
      headers["content-type"] = "application/json";
      payload = JSON.stringify(body);
    }
    const res = await fetch(new URL(path, this.baseUrl), {
      method,
      headers,
      body: payload,
      redirect: "manual",
    });
    const set = res.headers.getSetCookie().map((c) => c.split(";")[0]);
    if (set.length) this.cookie = set.join("; ");
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // not JSON: keep the text
    }
    if (res.status < 200 || res.status > 299)
      throw new Error(`${method} ${path} answered ${res.status}: ${text.slice(0, 500)}`);
    return { status: res.status, body: parsed as T };
  }

  /** POST /api/auth/register; the session cookie is kept for the next calls. */
  async register(email: string, password = "correct-horse-battery"): Promise<void> {
    await this.call("POST", "/api/auth/register", {
      name: "Smoke Tester",
      business_name: "Smoke Co",
      email,
      password,
    });
    await this.call("GET", "/api/auth/me");
  }

  /**
   * Confirms `email` (issue 11: an unverified account cannot launch campaigns) with the token of the
   * newest verification email the local provider wrote to `outbox_messages`, read through `sql`
   * (polled up to `timeoutMs`: the email is sent by a job), then POST /api/auth/verify-email.
   */
  async verifyEmail(sql: Sql, email: string, timeoutMs = 60_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const rows = await sql<{ body: string }[]>`
        select body from outbox_messages where "to" = ${email} and channel = 'email' order by id desc limit 20`;
      const token = rows.map((r) => /\/verify-email\?token=([a-z2-7]+)/.exec(r.body)?.[1]).find(Boolean);
      if (token) {
        await this.call("POST", "/api/auth/verify-email", { token });
        return;
      }
      if (Date.now() > deadline) throw new Error(`no verification email for ${email} within ${timeoutMs} ms`);
      await sleep(250);
    }
  }

  /**
   * POST /api/contacts/import/upload (multipart, the streaming import run by the worker), then polls
   * GET /api/contacts/imports/{id} until it is completed.
   * @returns the finished import (created, errors, ...)
   * @throws Error when the import fails or is not finished within `timeoutMs`
   */
  async importCsv(csv: string, timeoutMs = 60_000): Promise<{ created: number; errors: number }> {
    const form = new FormData();
    form.append("file", new Blob([csv], { type: "text/csv" }), "contacts.csv");
    const started = await this.call<{ import: { id: string } }>("POST", "/api/contacts/import/upload", form);
    const id = started.body.import.id;
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const { body } = await this.call<{
        import: { status: string; created: number; errors: number; failure_reason: string | null };
      }>("GET", `/api/contacts/imports/${id}`);
      if (body.import.status === "completed") return body.import;
      if (body.import.status === "failed") throw new Error(`import failed: ${body.import.failure_reason}`);
      if (Date.now() > deadline) throw new Error(`import still ${body.import.status} after ${timeoutMs} ms`);
      await sleep(250);
    }
  }

  /** Ids of the workspace's contacts (GET /api/contacts, every page). */
  async contactIds(): Promise<number[]> {
    const ids: number[] = [];
    let cursor: string | null = null;
    do {
      const q: string = cursor ? `&cursor=${encodeURIComponent(cursor)}` : "";
      const { body } = await this.call<{ contacts: { id: number }[]; nextCursor: string | null }>(
        "GET",
        `/api/contacts?limit=200${q}`,
      );
      ids.push(...body.contacts.map((c) => c.id));
      cursor = body.nextCursor;
    } while (cursor);
    return ids;
  }

  /** POST /api/campaigns: an email campaign to `contactIds`, launched now. @returns its id */
  async launchEmailCampaign(contactIds: number[], name = "Smoke campaign"): Promise<number> {
    const { body } = await this.call<{ campaignId: number; recipients: number }>("POST", "/api/campaigns", {
      name,
      channel: "email",
      content: { subject: "Hello {{first_name}}", body: "Hi {{first_name}}, this is a smoke test." },
      recipients: { contactIds },
    });
    return body.campaignId;
  }

  /**
   * Polls GET /api/campaigns/{id} until the campaign is completed.
   * @returns the report's recipient counts by status
   * @throws Error when it fails, is cancelled or is still sending after `timeoutMs`
   */
  async waitForCampaign(id: number, timeoutMs = 120_000): Promise<Record<string, unknown>> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const { body } = await this.call<{ campaign: { status: string } } & Record<string, unknown>>(
        "GET",
        `/api/campaigns/${id}`,
      );
      const status = body.campaign.status;
      if (status === "completed") return body;
      if (status === "failed" || status === "cancelled") throw new Error(`campaign ${id} ended ${status}`);
      if (Date.now() > deadline) throw new Error(`campaign ${id} still ${status} after ${timeoutMs} ms`);
      await sleep(500);
    }
  }
}

/**
 * Polls `url` until it answers 200 (a server booting).
 * @throws Error after `timeoutMs`
 */
export async function waitForHealthy(url: string, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const res = await fetch(url);
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`${url} did not answer 200 within ${timeoutMs} ms`);
    await sleep(300);
  }
}

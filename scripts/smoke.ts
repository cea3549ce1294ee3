/**
 * Smoke test of a running production server (scripts/smoke-build.sh starts the built one):
 * `tsx scripts/smoke.ts <base-url>`. Checks /healthz, the precompressed and cached client, that the
 * dev outbox is absent, then registers, verifies the address (the link in the outbox table, read through
 * DATABASE_URL), imports a CSV of 20 contacts through the streaming upload
 * (worker job), sends them an email campaign through the local provider and waits until every
 * recipient is sent. Exits 1 with the failing step.
 */
import postgres from "postgres";
import { contactsCsv, SmokeClient, waitForHealthy } from "./smoke-lib";

const base = process.argv[2] ?? process.env.SMOKE_URL;
if (!base) {
  console.error("usage: tsx scripts/smoke.ts <base-url>");
  process.exit(2);
}

function check(ok: boolean, what: string): void {
  if (!ok) throw new Error(what);
  console.log(`  ok  ${what}`);
}

async function main(url: string) {
  await waitForHealthy(new URL("/healthz", url).href);
  check(true, "GET /healthz answers 200");

  const shell = await fetch(new URL("/contacts", url), { headers: { "accept-encoding": "br, gzip" } });
  const html = await shell.text();
  check(
    shell.status === 200 &&
      shell.headers.get("content-encoding") === "br" &&
      shell.headers.get("cache-control") === "no-cache",
    "GET /contacts serves index.html brotli-compressed with Cache-Control: no-cache",
  );
  const script = /<script type="module" crossorigin src="([^"]+)"/.exec(html)?.[1];
  check(Boolean(script), `index.html names its entry script (${script})`);
  const js = await fetch(new URL(script!, url), { headers: { "accept-encoding": "gzip" } });
  await js.arrayBuffer();
  check(
    js.headers.get("content-encoding") === "gzip" &&
      js.headers.get("cache-control") === "public, max-age=31536000, immutable",
    `${script} served gzip with immutable caching to a gzip-only client`,
  );
  const outbox = await fetch(new URL("/api/dev/outbox", url));
  await outbox.arrayBuffer();
  check(outbox.status === 404, "the dev outbox API is not served in production");

  const tag = `smoke${Date.now().toString(36)}`;
  const client = new SmokeClient(url);
  await client.register(`${tag}@example.com`);
  check(true, `registered ${tag}@example.com`);
  if (!process.env.DATABASE_URL) throw new Error("DATABASE_URL is needed to read the verification email");
  const sql = postgres(process.env.DATABASE_URL, { max: 1, onnotice: () => {} });
  try {
    await client.verifyEmail(sql, `${tag}@example.com`);
  } finally {
    await sql.end({ timeout: 5 });
  }
  check(true, "verified the address through the link in the verification email (outbox)");
  const imported = await client.importCsv(contactsCsv(20, tag));
  check(
    imported.created === 20 && imported.errors === 0,
    `imported 20 contacts (created ${imported.created}, errors ${imported.errors})`,
  );
  const ids = await client.contactIds();
  check(ids.length === 20, `the contacts list shows 20 contacts (${ids.length})`);
  const campaignId = await client.launchEmailCampaign(ids);
  const report = (await client.waitForCampaign(campaignId)) as {
    campaign: { status: string; counts: Record<string, number> };
  };
  check(
    report.campaign.status === "completed",
    `email campaign ${campaignId} completed through the local provider ${JSON.stringify(report.campaign.counts)}`,
  );
  const recipients = await client.call<{ recipients: { status: string }[]; total?: number }>(
    "GET",
    `/api/campaigns/${campaignId}/recipients?limit=100`,
  );
  const delivered = new Set(["sent", "delivered", "opened", "clicked", "replied"]);
  const sent = recipients.body.recipients.filter((r) => delivered.has(r.status));
  check(
    sent.length === 20,
    `all 20 recipients were sent (${sent.length} of ${recipients.body.recipients.length})`,
  );
  console.log("smoke test passed");
}

main(base).catch((error: unknown) => {
  console.error(`smoke test FAILED: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});

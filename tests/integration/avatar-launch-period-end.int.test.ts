import { eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { campaigns, usageMeters, workspaces } from "../../src/server/db/schema";
import { addMonths } from "../../src/server/features/billing/billing.service";
import { uniqueEmail } from "../helpers";
import { setupV1VideoApp } from "./v1-video-setup";

// A personalised (AI avatar) video launch is launched "scheduled" ten minutes ahead only to hold its
// messages until their renders are queued; its video messages were reserved in the billing period of
// that hold's time. In a period's last ten minutes that is the next period, so a workspace whose
// meter was full launched anyway (the full unit run at 23:50 UTC on 30 November: 201 where
// api-v1-video-avatar expects 402) and its renders ran before the send found the meter full. The
// launch now reserves them in the period of now, as an immediate send's.

const setup = setupV1VideoApp({ name: "Pat Period", business_name: "Pat's Plumbing" });
const { keyed } = setup;

describe("an avatar video launch in the last minutes of a billing period", () => {
  it("counts against this period's full meter: 402, nothing created, nothing reserved in the next period", async () => {
    const k = await keyed(["contacts:write", "campaigns:read", "campaigns:write"]);
    const t = setup.t;
    // a Business subscription whose period ends in five minutes: the launch's ten-minute hold is in
    // the next period
    const end = new Date(Date.now() + 5 * 60_000);
    await t.db
      .update(workspaces)
      .set({ subscriptionStatus: "active", currentPeriodEnd: end })
      .where(eq(workspaces.id, k.user.id));
    const periodStart = addMonths(end, -1);
    // 999 of Business's 1,000 video messages used this period
    await t.db
      .insert(usageMeters)
      .values({ workspaceId: k.user.id, meter: "videoMessages", periodStart, used: 999 });
    const ids: number[] = [];
    for (const name of ["Cleo", "Dan"])
      ids.push((await k.call("POST", "/contacts", { first_name: name, email: uniqueEmail(name) })).json().id);

    const over = await k.call("POST", "/campaigns", {
      name: "Last minutes",
      channel: "video_email",
      content: { avatar_script: "Hi {{first_name|there}}" },
      audience: { contact_ids: ids },
    });
    expect(over.statusCode, over.body).toBe(402);
    expect(over.json().error.message).toBe(
      "Your Business plan includes 1,000 video messages a month; this needs 2 and 1 is left. Upgrade to Enterprise for unlimited video messages.",
    );
    expect(await t.db.select().from(campaigns).where(eq(campaigns.workspaceId, k.user.id))).toHaveLength(0);
    const meters = await t.db.execute<{ period_start: string; used: number }>(
      sql`select period_start::text, used from usage_meters where workspace_id = ${k.user.id} and meter = 'videoMessages' order by period_start`,
    );
    expect(meters.map((m) => m.used)).toEqual([999]);
  });
});

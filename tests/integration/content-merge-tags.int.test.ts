import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { avatarVideos, campaigns, outboxMessages, videoLandingPages } from "../../src/server/db/schema";
import {
  mergeSource,
  renderEmailFor,
  renderScriptFor,
  renderSmsFor,
  senderFrom,
} from "../../src/server/features/campaigns/campaigns.content";
import { getContactsByIds } from "../../src/server/features/crm/crm.service";
import { renderMergeTags, toMergeTags } from "../../src/server/lib/merge-tags";
import { createTestApp, setPlan, signUp, type TestApp, uniqueEmail } from "../helpers";

/**
 * Issue 14 section 3: one merge-tag syntax in every channel. One contact (Maria Lopez of Lopez Bakery)
 * receives an email, an SMS, an AI call, a voicemail, a video message and an AI avatar video from
 * Sam's Plumbing; every channel renders {{first_name|there}}, {{name}}, {{company|your company}}, a
 * contact field ({{city}}) and {{my_business}} the same way, and legacy {name} still works.
 */

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());

const TEMPLATE =
  "Hi {{first_name|there}} ({{name}}) of {{company|your company}} in {{city|your town}}: {{my_business}} here.";
const EXPECTED = "Hi Maria (Maria Lopez) of Lopez Bakery in Austin: Sam's Plumbing here.";

async function outboxOf(channel: string, to: string) {
  return t.db
    .select()
    .from(outboxMessages)
    .where(and(eq(outboxMessages.channel, channel), eq(outboxMessages.to, to)));
}

describe("merge tags across channels", () => {
  it("renders the same tags for one contact in email, SMS, call, voicemail, video message and avatar script", async () => {
    const { client, user } = await signUp(t.app, { name: "Sam Seller", business_name: "Sam's Plumbing" });
    await setPlan(t, user.id, "business");
    const email = uniqueEmail("maria");
    const created = await client.post("/api/contacts", {
      first_name: "Maria",
      last_name: "Lopez",
      email,
      phone: "+12125550188",
      company: "Lopez Bakery",
      city: "Austin",
      sms_opt_in: true,
      call_opt_in: true,
    });
    expect(created.statusCode, created.body).toBe(200);
    const contactId = created.json().contact.id as number;
    const [contact] = await getContactsByIds(t, user.id, [contactId]);
    const source = mergeSource(contact);

    // email: subject + body, sent From the workspace's sender name on the EMAIL_FROM address
    const launch = (channel: string, content: Record<string, unknown>) =>
      client.post("/api/campaigns", {
        name: `Tags ${channel}`,
        channel,
        content,
        recipients: { contactIds: [contactId] },
        includeNotOptedIn: true,
      });
    const em = await launch("email", { subject: "For {{first_name|there}}", body: TEMPLATE });
    expect(em.statusCode, em.body).toBe(200);
    const [mail] = await outboxOf("email", email);
    expect(mail.subject).toBe("For Maria");
    expect(mail.body).toContain(EXPECTED);
    expect(mail.from).toBe(`"Sam's Plumbing" <hello@pitchwise.local>`);
    expect(senderFrom("Sam's Plumbing", t.env.EMAIL_FROM)).toBe(mail.from);
    // the builders' review shows exactly that From
    const sender = await client.get("/trpc/campaigns.sender");
    expect(sender.json().result.data.json).toEqual({ myBusiness: "Sam's Plumbing", from: mail.from });

    // SMS, call and voicemail: the launch snapshot renders the same text (the send may wait for quiet hours)
    for (const [channel, content] of [
      ["sms", { message: TEMPLATE }],
      ["voice", { script: TEMPLATE }],
      ["voicemail", { script: TEMPLATE }],
    ] as const) {
      const res = await launch(channel, content);
      expect(res.statusCode, res.body).toBe(200);
      const [row] = await t.db.select().from(campaigns).where(eq(campaigns.id, res.json().campaign.id));
      expect(row.content.myBusiness).toBe("Sam's Plumbing");
      const rendered =
        channel === "sms"
          ? renderSmsFor(row.content, source, "tok", t.env, false).body
          : renderScriptFor(row.content, source);
      expect(rendered, channel).toBe(EXPECTED);
      const sent = await outboxOf(channel, "+12125550188");
      // sent now when it is daytime in New York; then the outbox holds exactly that text
      for (const m of sent) expect(m.body, channel).toContain(EXPECTED);
    }

    // video message (landing page) and the personalised avatar script, with the legacy {name} form
    const video = await client.post("/api/campaigns/video", {
      campaignName: "Tags video",
      avatarScript: "Hello {first_name}! {{my_business}} made this for {{company|your company}}.",
      deliveryMethod: "email",
      message: TEMPLATE,
      contacts: [{ name: "Maria Lopez", company: "Lopez Bakery", email }],
    });
    expect(video.statusCode, video.body).toBe(200);
    const [avatar] = await t.db.select().from(avatarVideos).where(eq(avatarVideos.workspaceId, user.id));
    expect(avatar.script).toBe("Hello Maria! Sam's Plumbing made this for Lopez Bakery.");
    const videoMails = (await outboxOf("email", email)).filter((m) => m.subject !== "For Maria");
    const link = /\/v\/([a-z0-9]+)/.exec(videoMails[0]?.html ?? "");
    expect(link, videoMails[0]?.html ?? "no video email").toBeTruthy();
    const page = await t.app.inject({ method: "GET", url: `/v/${link![1]}` });
    expect(page.statusCode).toBe(200);
    const [landing] = await t.db
      .select()
      .from(videoLandingPages)
      .where(eq(videoLandingPages.token, link![1]));
    // the CSV row is matched to Maria's contact by email, so every field (her city too) renders as elsewhere
    expect(landing.message).toBe("Hi Maria (Maria Lopez) of Lopez Bakery in Austin: Sam's Plumbing here.");
    expect(videoMails[0].body).toContain("Sam's Plumbing here.");
  });

  it("keeps stored single-brace placeholders working and renders fallbacks for a blank contact", () => {
    expect(toMergeTags("Hi {name}, [company] by {my_business}")).toBe(
      "Hi {{name|there}}, {{company|your company}} by {{my_business}}",
    );
    const extra = { extra: { my_business: "Sam's Plumbing" } };
    expect(renderMergeTags("Hi {name} / {first_name} of {company} from {my_business}", {}, extra)).toBe(
      "Hi there / there of your company from Sam's Plumbing",
    );
    // a contact never supplies my_business, and a CSV row's name gives the first name
    expect(renderMergeTags("{{my_business}} {{first_name}}", { my_business: "x", name: "Ann Lee" })).toBe(
      " Ann",
    );
    const tpl = { subject: "{{first_name|there}}", html: "<p>{{my_business}}</p>", text: "{{my_business}}" };
    const m = renderEmailFor(tpl, { myBusiness: "A & B" }, {}, "tok", t.env);
    expect(m.subject).toBe("there");
    expect(m.html).toContain("A &amp; B");
    expect(m.text).toBe("A & B");
  });
});

import { afterAll, beforeAll, expect, it } from "vitest";
import { createTestApp, signUp, type TestApp, uniqueEmail } from "../helpers";

/**
 * A contact deleted while a campaign launch is under way (a bulk delete committing between the launch
 * reading its audience and inserting its recipients) made the recipients' insert fail on the contacts
 * foreign key: the launch answered 500 and created nothing. The launch now starts over when its
 * audience lost a contact, and goes to the contacts still there. The interleaving is made certain: a
 * trigger on the campaign row's insert waits for an advisory lock the test holds while it deletes.
 */
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());

const GATE = 424242;

it("a contact deleted between the audience read and the recipients' insert: the launch goes to the others", async () => {
  const { client, user } = await signUp(t.app);
  const ids: number[] = [];
  for (const name of ["gone", "stays"]) {
    const r = await client.post("/api/contacts", { first_name: name, email: uniqueEmail(name) });
    expect(r.statusCode, r.body).toBe(200);
    ids.push(r.json().contact.id);
  }
  const fn = `gate_launch_${user.id.replaceAll("-", "")}`;
  await t.sql.unsafe(`
    create function ${fn}() returns trigger language plpgsql as $$
    begin
      if new.workspace_id = '${user.id}' then perform pg_advisory_xact_lock(${GATE}, 1); end if;
      return new;
    end $$;
    create trigger ${fn} before insert on campaigns for each row execute function ${fn}();`);
  try {
    let launch: Awaited<ReturnType<typeof client.post>> | undefined;
    await t.sql.begin(async (gate) => {
      await gate`select pg_advisory_xact_lock(${GATE}, 1)`;
      client
        .post("/api/campaigns", {
          name: "Race",
          channel: "email",
          content: { subject: "Hi", body: "Hello {{first_name}}" },
          recipients: { contactIds: ids },
        })
        .then((r) => {
          launch = r;
        });
      // the launch has read its audience and waits in the campaign insert
      for (let i = 0; i < 200; i++) {
        const [w] = await t.sql<{ n: number }[]>`
          select count(*)::int as n from pg_locks where locktype = 'advisory' and not granted and classid = ${GATE}`;
        if (w?.n) break;
        await new Promise((r) => setTimeout(r, 25));
      }
      // meanwhile another request deletes a contact of the audience, and commits
      expect((await client.del(`/api/contacts/${ids[0]}`)).statusCode).toBe(200);
    });
    for (let i = 0; i < 200 && !launch; i++) await new Promise((r) => setTimeout(r, 25));
    expect(launch?.statusCode, launch?.body).toBe(200);
    expect(launch?.json().recipients).toBe(1);
    const [r] = await t.sql<{ n: number; contact: number }[]>`
      select count(*)::int as n, max(contact_id)::int as contact from campaign_recipients
      where campaign_id = ${launch?.json().campaign.id}`;
    expect(r).toEqual({ n: 1, contact: ids[1] });
  } finally {
    await t.sql.unsafe(`drop trigger ${fn} on campaigns; drop function ${fn}();`);
  }
});

import postgres from "postgres";
import { inject } from "vitest";
import { daytimePhone } from "./daytime-phone";

/**
 * Phone numbers no other test of this run is given. Test files run side by side on one database and
 * numbers are global there (a STOP suppresses a number in every workspace; the outbox is read by
 * number), so a number derived from the process id could meet another file's: campaign-audiences texts
 * +1 212 555 1001-1050, and a pid-derived number in that range counted its texts (CI of stop 34).
 *
 * The 4-digit suffix comes from the sequence `test_phone_suffix` (3000-8999, cycling) that the global
 * set-up creates; fixed numbers in tests stay outside that range (0100-2999, 9000-9999).
 */
let sql: postgres.Sql | null = null;

/** The next suffix, "3000".."8999"; opens one idle-closing connection to the run's database. */
export async function uniqueSuffix(): Promise<string> {
  sql ??= postgres(inject("databaseUrl"), { max: 1, idle_timeout: 1 });
  const [row] = await sql<{ n: string }[]>`SELECT nextval('test_phone_suffix')::text AS n`;
  if (!row) throw new Error("test_phone_suffix gave no value");
  return row.n;
}

/** +1 `area` 555 nnnn, unique in this run (`area` picks the place: 212/646 New York, 415/628 San Francisco, 312 Chicago). */
export async function uniquePhone(area: string): Promise<string> {
  return `+1${area}555${await uniqueSuffix()}`;
}

/** A number where it is now day (see daytimePhone), unique in this run. */
export async function uniqueDaytimePhone(): Promise<string> {
  return daytimePhone(Number(await uniqueSuffix()));
}

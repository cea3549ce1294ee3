import { ADVISORY_LOCK } from "../src/server/db/locks";
import type { AuthedClient, TestApp } from "./helpers";

/** Class of crm.tags.queries' tag-creation advisory lock (db/locks ADVISORY_LOCK.tagCreation). */
export const TAG_CREATION_LOCK_CLASS = ADVISORY_LOCK.tagCreation;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The lead search the "Add to contacts" tests add from: dentists around Saginaw, MI (radius 5,
 * searchRadius 2) through POST /api/maps/search with the local maps provider. Returns the answer's
 * JSON as is (`searchId`, `businesses[].place_id`, ...).
 */
export async function searchSaginawDentists(client: AuthedClient) {
  return (
    await client.post("/api/maps/search", {
      location: "Saginaw, MI",
      businessType: "dentist",
      radius: 5,
      searchRadius: 2,
    })
  ).json();
}

/**
 * Waits (up to 200 polls 25 ms apart) until a session waits, not granted, for workspace
 * `workspaceId`'s tag-creation advisory lock (this workspace's key: other test files take the same
 * lock class at the same time); returns that backend's pid, or undefined if none came.
 */
export async function waitForTagLockWaiter(sql: TestApp["sql"], workspaceId: string) {
  let pid: number | undefined;
  for (let i = 0; i < 200 && !pid; i++) {
    const [w] = await sql<{ pid: number }[]>`
      select pid from pg_locks
      where locktype = 'advisory' and not granted and classid = ${TAG_CREATION_LOCK_CLASS}
        and objid::text::bigint = (hashtext(${workspaceId}::text)::bigint & 4294967295)`;
    pid = w?.pid;
    if (pid) break;
    await sleep(25);
  }
  return pid;
}

/**
 * Waits (up to 200 polls 25 ms apart) until `answered()` is true or a `delete from "contacts"` query
 * is blocked by backend `blockerPid` (0 when undefined); returns without saying which.
 */
export async function waitForContactDeleteBlockedBy(
  sql: TestApp["sql"],
  blockerPid: number | undefined,
  answered: () => boolean,
) {
  for (let i = 0; i < 200 && !answered(); i++) {
    const [w] = await sql<{ n: number }[]>`
      select count(*)::int as n from pg_stat_activity
      where ${blockerPid ?? 0}::int = any(pg_blocking_pids(pid)) and query ilike '%delete from "contacts"%'`;
    if (w?.n) break;
    await sleep(25);
  }
}

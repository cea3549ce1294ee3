import type { DbOrTx } from "./client";

/**
 * Hot-path statements built once per database handle and run as prepared statements.
 *
 * Why: a drizzle query built per call costs ~0.7-1 ms of Node CPU (building the SQL of a join of
 * wide tables, column by column) and, sent unnamed, ~0.5-0.9 ms of Postgres CPU to parse and plan
 * it again; built once with `sql.placeholder(...)` and `.prepare(name)` it costs ~0.1 ms of each
 * (measured with scripts/bench-api.ts's per-request CPU figures; issues 11 and 15). postgres.js
 * prepares the statement once per pooled connection and reuses it by its text.
 *
 * `key` names the statement's shape (one per distinct SQL text, e.g. "crm.page:stage"); `build`
 * returns the drizzle prepared query for `db`. Entries are kept per handle (a WeakMap): the app's
 * pool keeps its statements for its life, and a transaction's die with it.
 * Use it only for statements whose text does not vary with the data (no `IN (...)` of a varying
 * length) and whose generic plan is good (equality on indexed keys, keyset ranges). A `LIMIT $n`
 * makes Postgres cost the generic plan at a tenth of the table, so it plans every run anew: write
 * the usual limits into the text instead (crm.queries selectContactsPage's LITERAL_LIMITS);
 * Postgres plans a prepared statement's first five runs for their own values and keeps a generic plan
 * only when it is estimated to cost no more (plan_cache_mode auto): where the values sway the estimate
 * (a small workspace beside large ones, a large workspace's size, a search term's index keys), the
 * contact list's search and page statements pass them as opaque parameters (crm.queries opaque) so
 * that the generic plan is kept; the estimate that decides a large workspace's search strategy
 * (estimateContactsWhere) is always planned with its values inlined.
 */
const statements = new WeakMap<object, Map<string, unknown>>();

export function prepared<T>(db: DbOrTx, key: string, build: (db: DbOrTx) => T): T {
  let byKey = statements.get(db);
  if (!byKey) {
    byKey = new Map();
    statements.set(db, byKey);
  }
  let q = byKey.get(key) as T | undefined;
  if (q === undefined) {
    q = build(db);
    byKey.set(key, q);
  }
  return q;
}

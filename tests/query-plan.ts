/** A node of a Postgres plan as EXPLAIN (format json) gives it: the fields the plan tests read. */
export type PlanNode = {
  "Node Type": string;
  "Index Name"?: string;
  "Plan Rows"?: number;
  "Total Cost"?: number;
  "Actual Rows": number;
  "Rows Removed by Filter"?: number;
  "Heap Fetches"?: number;
  Plans?: PlanNode[];
};

/**
 * The top plan node of a row of `EXPLAIN (format json)` as a driver returns it (its "QUERY PLAN"
 * column: parsed JSON, or the JSON text).
 */
export function planOfRow(row: unknown): PlanNode {
  const raw = (row as Record<string, unknown>)["QUERY PLAN"];
  const plan = (typeof raw === "string" ? JSON.parse(raw) : raw) as [{ Plan: PlanNode }];
  return plan[0].Plan;
}

/** `p` and every node below it, depth first. */
export function planNodes(p: PlanNode): PlanNode[] {
  return [p, ...(p.Plans ?? []).flatMap(planNodes)];
}

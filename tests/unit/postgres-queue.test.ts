import path from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";

/**
 * postgres.js's connection queue (node_modules/postgres/src/queue.js, patched by
 * patches/postgres+3.4.9.patch at `npm ci`). Unpatched, a queue that never runs empty (the pool's
 * busy queue under steady load) keeps every shifted slot, and each `remove` (one per query as a
 * connection moves between queues) scanned all of them from the start: 114,268 slots after 5 s of
 * `select 1` from 50 callers, about 45 % of the process's time: 94-104k vs 174-189k queries in 5 s.
 */
type Queue<T> = { length: number; push(x: T): T; shift(): T; remove(x: T): T | null };
const load = async () =>
  (await import(pathToFileURL(path.resolve("node_modules/postgres/src/queue.js")).href)).default as <T>(
    initial?: T[],
  ) => Queue<T>;

describe("postgres.js connection queue (patched)", () => {
  it("is first in, first out; remove takes an element from anywhere and null for one not queued", async () => {
    const Q = await load();
    const q = Q<string>();
    for (const x of ["a", "b", "c", "d"]) q.push(x);
    expect(q.shift()).toBe("a");
    expect(q.remove("c")).toBe("c");
    expect(q.remove("a")).toBeNull();
    expect(q.remove("zz")).toBeNull();
    expect(q.length).toBe(2);
    expect([q.shift(), q.shift()]).toEqual(["b", "d"]);
    expect(q.length).toBe(0);
  });

  it("a queue that never runs empty scans only its live elements on remove", async () => {
    const Q = await load();
    // an Array whose indexOf records the span it searches; slice() keeps the class (Symbol.species)
    const spans: number[] = [];
    class Probe<T> extends Array<T> {
      override indexOf(x: T, from = 0): number {
        spans.push(this.length - from);
        return super.indexOf(x, from);
      }
    }
    const q = Q<number>(Probe.from([0, 1, 2, 3, 4, 5, 6, 7]) as number[]);
    // 100,000 connections leave and rejoin: the queue holds 8 elements throughout
    for (let i = 8; i < 100_008; i++) {
      q.push(i);
      expect(q.shift()).toBe(i - 8);
    }
    expect(q.length).toBe(8);
    spans.length = 0;
    expect(q.remove(100_007)).toBe(100_007);
    expect(q.remove(100_000)).toBe(100_000);
    expect(q.length).toBe(6);
    expect(spans).toHaveLength(2);
    // unpatched: every shifted slot is searched (100,008)
    for (const s of spans) expect(s).toBeLessThanOrEqual(2 * 8 + 64);
    expect([1, 2, 3, 4, 5, 6].map(() => q.shift())).toEqual([
      100_001, 100_002, 100_003, 100_004, 100_005, 100_006,
    ]);
  });
});

import { describe, expect, it } from "vitest";
import { isRetryableRace, retryOnRace } from "../../src/server/db/retry";

const pgError = (code: string) => Object.assign(new Error(`pg ${code}`), { code });

describe("retryOnRace (src/server/db/retry.ts)", () => {
  it("recognises deadlocks and serialization failures, also wrapped by drizzle (cause)", () => {
    expect(isRetryableRace(pgError("40P01"))).toBe(true);
    expect(isRetryableRace(pgError("40001"))).toBe(true);
    expect(isRetryableRace(new Error("Failed query", { cause: pgError("40P01") }))).toBe(true);
    expect(isRetryableRace(pgError("23505"))).toBe(false);
    expect(isRetryableRace(new Error("no code"))).toBe(false);
    expect(isRetryableRace(null)).toBe(false);
  });

  it("runs the work again after a deadlock and returns its result", async () => {
    const seen: number[] = [];
    const retried: number[] = [];
    const out = await retryOnRace(
      async (attempt) => {
        seen.push(attempt);
        if (attempt < 3) throw pgError("40P01");
        return "done";
      },
      { onRetry: (_e, attempt) => retried.push(attempt) },
    );
    expect(out).toBe("done");
    expect(seen).toEqual([1, 2, 3]);
    expect(retried).toEqual([1, 2]);
  });

  it("gives up after `attempts` and throws the last error; other errors are thrown at once", async () => {
    let n = 0;
    await expect(
      retryOnRace(
        async () => {
          n++;
          throw pgError("40001");
        },
        { attempts: 3 },
      ),
    ).rejects.toMatchObject({ code: "40001" });
    expect(n).toBe(3);
    n = 0;
    await expect(
      retryOnRace(async () => {
        n++;
        throw pgError("23505");
      }),
    ).rejects.toMatchObject({ code: "23505" });
    expect(n).toBe(1);
  });
});

import { describe, expect, it } from "vitest";
import { keepsIdempotentAnswer } from "../../src/server/features/api/api.service";
import { AppError, markRaisedAfterChanges, raisedAfterChanges } from "../../src/server/lib/errors";

describe("which answers an Idempotency-Key keeps (keepsIdempotentAnswer)", () => {
  it("keeps the answers of work that ran", () => {
    for (const status of [200, 201, 204]) expect(keepsIdempotentAnswer(status), String(status)).toBe(true);
  });

  it("keeps no refusal that changed nothing, 402 included", () => {
    for (const status of [400, 401, 402, 403, 404, 409, 413, 415, 422, 429])
      expect(keepsIdempotentAnswer(status), String(status)).toBe(false);
  });

  it("keeps a refusal raised after the request committed changes", () => {
    for (const status of [400, 402, 404, 409, 422])
      expect(keepsIdempotentAnswer(status, true), String(status)).toBe(true);
  });

  it("keeps no 5xx, after changes or not (released for a retry)", () => {
    for (const status of [500, 502, 503]) {
      expect(keepsIdempotentAnswer(status), String(status)).toBe(false);
      expect(keepsIdempotentAnswer(status, true), String(status)).toBe(false);
    }
  });
});

describe("markRaisedAfterChanges", () => {
  it("marks the error itself, leaving its status, message and details as they were", () => {
    const e = new AppError("UNPROCESSABLE", "Nobody would receive this campaign", {
      expose: { skipped: {} },
    });
    expect(raisedAfterChanges(e)).toBe(false);
    expect(markRaisedAfterChanges(e)).toBe(e);
    expect(raisedAfterChanges(e)).toBe(true);
    expect([e.status, e.message, e.details]).toEqual([
      422,
      "Nobody would receive this campaign",
      { expose: { skipped: {} } },
    ]);
    expect(raisedAfterChanges(new AppError("UNPROCESSABLE", "x"))).toBe(false);
    expect(markRaisedAfterChanges("text")).toBe("text");
    expect(raisedAfterChanges("text")).toBe(false);
    expect(raisedAfterChanges(null)).toBe(false);
  });
});
